// Starts the API docs (Swagger UI, served by this app from the swagger-ui-py package).
// validatorUrl null: Swagger UI would otherwise send the document to an online validator.

// OpenAPI 3 does not let a header parameter named Authorization carry the credential, and
// Swagger UI's "Try it out" drops whatever is typed in such a field: the request would go
// without it (401). The contract keeps the parameter (it documents which credential each
// operation takes); the page does not offer the field, and the credential goes in through
// "Authorize", which does send it.
const HideAuthorizationField = () => ({
  wrapComponents: {
    parameterRow: (Original, system) => (props) => {
      const param = props.rawParam || props.param;
      const name = param && param.get ? String(param.get("name") || "") : "";
      if (param && param.get("in") === "header" && name.toLowerCase() === "authorization") return null;
      return system.React.createElement(Original, props);
    },
  },
});

window.ui = SwaggerUIBundle({
  url: "/schema/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  plugins: [HideAuthorizationField],
  layout: "BaseLayout",
});
