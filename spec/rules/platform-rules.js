// Project lint rules that Redocly's configurable assertions cannot express.
// Loaded by redocly.yaml (`plugins`); rule ids are `platform-rules/<name>`.

const SHARED_RESPONSE_REF = /(^#\/components\/responses\/|components\/responses\/[A-Za-z0-9]+\.yaml)/;

/** Every operation has at least one 2xx response; each 2xx that has content carries an example. */
function successResponseWithExample() {
  return {
    Operation(operation, ctx) {
      const responses = operation.responses ?? {};
      const success = Object.keys(responses).filter((code) => /^2(\d\d|XX)$/.test(code));
      if (success.length === 0) {
        ctx.report({
          message: 'Operation must document at least one 2xx response.',
          location: ctx.location.child('responses'),
        });
        return;
      }
      for (const code of success) {
        // A shared response ($ref) is reported where it is defined, not at the referencing operation.
        const { node: response, location: resolvedAt } = ctx.resolve(responses[code]);
        const responseLocation = resolvedAt ?? ctx.location.child(['responses', code]);
        for (const [mediaType, media] of Object.entries(response?.content ?? {})) {
          const { node: resolvedMedia } = ctx.resolve(media);
          const hasExample =
            resolvedMedia && (resolvedMedia.example !== undefined || resolvedMedia.examples !== undefined);
          if (!hasExample) {
            ctx.report({
              message: `Response ${code} (${mediaType}) must have an example or examples.`,
              location: responseLocation.child(['content', mediaType]),
            });
          }
        }
      }
    },
  };
}

/** Every 4xx/5xx response of an operation is a $ref to a shared component under components/responses. */
function errorResponseShared() {
  return {
    Operation(operation, ctx) {
      for (const [code, response] of Object.entries(operation.responses ?? {})) {
        if (!/^[45](\d\d|XX)$/.test(code)) continue;
        const ref = response && typeof response === 'object' ? response.$ref : undefined;
        if (typeof ref !== 'string' || !SHARED_RESPONSE_REF.test(ref)) {
          ctx.report({
            message: `Error response ${code} must reference a shared component in components/responses.`,
            location: ctx.location.child(['responses', code]),
          });
        }
      }
    },
  };
}

/**
 * A deprecated operation names when it was deprecated and when it may go (`x-deprecated-since`, `x-sunset`,
 * quoted YYYY-MM-DD dates): the reference server sends them as Deprecation and Sunset headers.
 */
function deprecationDates() {
  return {
    Operation(operation, ctx) {
      if (operation.deprecated !== true) return;
      for (const key of ['x-deprecated-since', 'x-sunset']) {
        const value = operation[key];
        if (
          typeof value !== 'string' ||
          !/^\d{4}-\d{2}-\d{2}$/.test(value) ||
          Number.isNaN(Date.parse(value))
        ) {
          ctx.report({
            message: `A deprecated operation needs ${key} as a quoted date ('2027-06-01').`,
            location: ctx.location.child(key),
          });
        }
      }
    },
  };
}

export default function platformRulesPlugin() {
  return {
    id: 'platform-rules',
    rules: {
      oas3: {
        'success-response-with-example': successResponseWithExample,
        'error-response-shared': errorResponseShared,
        'deprecation-dates': deprecationDates,
      },
    },
  };
}
