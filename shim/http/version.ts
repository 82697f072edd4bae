/** The response header naming the published version an answer came from, so auditors know what they check. */

/** Header name: the version as in current.json and /v1/coverage `version`. */
export const VERSION_HEADER = 'Directory-Version';
