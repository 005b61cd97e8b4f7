"""SQL storage: models, engine and session factory, repositories."""
