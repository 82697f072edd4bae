/** The source of the viewer-request CloudFront Function (infra/edge/viewer-request.js) with its KeyValueStore id filled in. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the function's source lives. */
export const VIEWER_REQUEST_SOURCE = join(dirname(fileURLToPath(import.meta.url)), 'edge', 'viewer-request.js');
/** The placeholder in the source that the store's id replaces. */
export const KVS_ID_PLACEHOLDER = '__KVS_ID__';
/** Largest function code CloudFront accepts, in bytes. */
export const MAX_FUNCTION_BYTES = 10_240;

/** The function code for the store with id `kvsId` (a token at synth time). */
export function viewerRequestCode(kvsId: string): string {
  const source = readFileSync(VIEWER_REQUEST_SOURCE, 'utf8');
  if (!source.includes(KVS_ID_PLACEHOLDER)) throw new Error(`${VIEWER_REQUEST_SOURCE} has no ${KVS_ID_PLACEHOLDER}`);
  return source.replace(KVS_ID_PLACEHOLDER, kvsId);
}
