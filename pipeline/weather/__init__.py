"""Weather on the farmer's fields (docs/weather.md): points, the forecast source, its
cache and the answers."""
