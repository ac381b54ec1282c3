// Starts the API docs (Swagger UI, served by this app from the swagger-ui-py package).
// validatorUrl null: Swagger UI would otherwise send the document to an online validator.
window.ui = SwaggerUIBundle({
  url: "/schema/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
});
