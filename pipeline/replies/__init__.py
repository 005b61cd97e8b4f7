"""How a reply is written for the person: light-path answers (`light`), the style adapter
(`style`), the farmer's or the operator's voice (`voice`) and the one-pass reflection
(`reflection`).
"""
