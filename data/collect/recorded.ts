/** Replay provider: answers from an earlier week's archive, so a week can be rebuilt without buying anything. */
import { readLogFile, type LogHeaderT } from './answers-log.ts';
import type { ApiPlaceT } from './places-api.ts';
import { FatalProviderError, type Provider, type SearchAnswer, type SearchPoint } from './provider.ts';

const keyOf = (query: string, lat: number, lng: number): string => `${lat},${lng}\u0000${query}`;

/** Serves the answers recorded in an archive (`answers.jsonl.gz` or a plain log); costs nothing. */
export class RecordedProvider implements Provider {
  readonly name = 'recorded';
  private readonly answers = new Map<string, ApiPlaceT[]>();
  /** The archive's header (its week and collection time). */
  readonly header: LogHeaderT;

  /** Loads `path`. */
  constructor(path: string) {
    const { header, answers } = readLogFile(path);
    this.header = header;
    for (const a of answers) this.answers.set(keyOf(a.query, a.lat, a.lng), a.places);
  }

  /** The recorded places, or a FatalProviderError when the archive has no answer for this search. */
  search(query: string, point: SearchPoint): Promise<SearchAnswer> {
    const places = this.answers.get(keyOf(query, point.lat, point.lng));
    if (places === undefined)
      return Promise.reject(
        new FatalProviderError(`the archive has no answer for "${query}" at ${point.lat},${point.lng}`),
      );
    return Promise.resolve({ places, requests: 0 });
  }
}
