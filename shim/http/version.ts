/** The response header naming the published version an answer came from, so auditors know what they check. */
import type { Service } from '../core/service.ts';

/** Header name: the version as in current.json and /v1/coverage `version`. */
export const VERSION_HEADER = 'Directory-Version';

/**
 * The version to name on an answer: the one the operation read when it read one, else the version being served now
 * (answers that read nothing, such as a 400 or the index). Null when the store cannot say (the answer is then a 503).
 */
export async function answerVersion(
  read: string | null,
  service: Pick<Service, 'currentVersion'>,
): Promise<string | null> {
  if (read !== null) return read;
  try {
    return await service.currentVersion();
  } catch {
    return null;
  }
}
