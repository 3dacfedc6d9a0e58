"""The API docs (/api/docs) render with the network cut off: Swagger UI is served by bosun."""

from __future__ import annotations

from urllib.parse import urlparse

from browser_kit import SCREEN, chromium, screenshot
from support.service import RunningService, service_options


def test_the_api_docs_render_with_no_network_but_bosun(mosquitto, tmp_path):
    with RunningService(service_options(mosquitto.url, tmp_path)) as service, chromium() as browser:
        own = urlparse(service.service.http_url).netloc
        asked: list[str] = []
        refused: list[str] = []

        def only_bosun(route) -> None:
            url = route.request.url
            asked.append(url)
            if urlparse(url).netloc == own:
                route.continue_()
            else:  # a café offline: nothing but bosun answers
                refused.append(url)
                route.abort()

        context = browser.new_context(**SCREEN)
        context.route("**/*", only_bosun)
        page = context.new_page()
        page.goto(f"{service.service.http_url}/api/docs")
        page.wait_for_selector(".swagger-ui .info .title")
        assert "bosun" in page.inner_text(".swagger-ui .info .title")
        page.wait_for_selector(".opblock-summary-path")
        paths = page.locator(".opblock-summary-path").all_inner_texts()
        assert "/api/tables" in paths and "/api/seat/{token}" in paths
        screenshot(page, "api-docs")
        assert refused == [], refused
        assert any(url.endswith("/swagger-ui-bundle.js") for url in asked)
        context.close()
