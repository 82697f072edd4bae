import { Validator } from '@seriousme/openapi-schema-validator';
import { buildOpenApi } from '/work/main/shim/core/openapi.ts';
const d = buildOpenApi();
console.log(JSON.stringify(await new Validator().validate(d as Record<string, unknown>)), Object.keys((d.paths as Record<string, object>)['/mcp']!), JSON.stringify(buildOpenApi()) === JSON.stringify(d));
