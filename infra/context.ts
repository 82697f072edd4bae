/** The CDK context of infra/cdk.json (the recommended feature flags), for synths that do not go through the CDK CLI. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CDK_JSON = join(dirname(fileURLToPath(import.meta.url)), 'cdk.json');

/** The `context` of infra/cdk.json: the feature flags the CLI applies, so a direct synth (tests, bin/app.ts) gives the same template. */
export function cdkJsonContext(): Record<string, unknown> {
  const parsed = JSON.parse(readFileSync(CDK_JSON, 'utf8')) as { context?: Record<string, unknown> };
  return parsed.context ?? {};
}
