"""Sending to Telegram: a Reply rendered and sent (`render`), every Bot API call retried
(`retry`), replies kept across flood control (`deferred`), messages nobody asked for
(`unasked`: alerts, reports, notices).
"""
