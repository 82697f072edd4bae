/** The local daily salt: random per UTC day, held only in memory, the previous day's forgotten as soon as a new day starts. */
import { randomBytes } from 'node:crypto';
import type { SaltProvider } from '../edge/edge-types.ts';

/** Bytes of each day's salt. */
export const SALT_BYTES = 32;

/** In-memory SaltProvider for one process (the AWS path shares a salt between instances instead). */
export class MemorySaltProvider implements SaltProvider {
  private day: string | null = null;
  private salt: Uint8Array | null = null;

  async saltFor(day: string): Promise<Uint8Array> {
    if (this.day === day && this.salt !== null) return this.salt;
    if (this.day !== null && day < this.day) {
      // A late request for a day already forgotten gets a throwaway salt: the old one must not come back.
      return new Uint8Array(randomBytes(SALT_BYTES));
    }
    if (this.salt !== null) this.salt.fill(0);
    this.day = day;
    this.salt = new Uint8Array(randomBytes(SALT_BYTES));
    return this.salt;
  }
}
