"""What a profile learns from use (seed sections 5-6): the rules (`rules`), the pure
conclusions (`observed`), the expertise rule (`expertise`), the service that writes them
(`learner`) and the daily sweep (`sweep`). Not to be confused with pipeline/learning,
which improves Stepan's routing.
"""
