// The API's docs page (/docs): Swagger UI over the app's own OpenAPI document, started from this file
// rather than an inline script, which the Content Security Policy refuses (docs/architecture.md#api-docs).
// No validator badge: it would call a server on the internet.
window.addEventListener("DOMContentLoaded", () => {
  window.ui = window.SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    validatorUrl: null,
    deepLinking: true,
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});
