// The API's docs page (/docs): Swagger UI over the app's own OpenAPI document, started from this file
// rather than an inline script, which the Content Security Policy refuses (docs/architecture.md#api-docs).
// No validator badge: it would call a server on the internet.
window.addEventListener("DOMContentLoaded", () => {
  window.ui = window.SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    validatorUrl: null,
    deepLinking: false, // a link inside the button that opens an operation is a control in a control (axe)
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});
