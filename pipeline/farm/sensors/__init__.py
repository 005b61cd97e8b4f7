"""Sensors: readings and their validation (`readings`), the store (`store`), time series
(`series`), CSV files (`csv_file`) and the alerts Stepan writes first (`alerts`,
`alert_rules`).
"""
