"""The stages, by job: entry, routing, answers, after (reflect, evaluate, record)
and decorate."""
