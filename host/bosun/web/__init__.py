"""The web side of the service: the JSON API, live streams and the pages."""
