/** What every page is generated from. */
import type { MetroPageData } from './metro-data.ts';

/** Inputs of the pages, all taken from the week's inputs (so output is deterministic). */
export interface PageContext {
  week: string;
  /** Monday of the week, YYYY-MM-DD. */
  weekOf: string;
  /** The previous week's name, when its samples were read. */
  previousWeek: string | null;
  synthetic: boolean;
  /** Measured metros, in metros.json order. */
  metros: MetroPageData[];
  /** Where firms write to correct or remove their record. */
  correctionsAddress: string;
  /** Footer line naming the data's week. */
  footnote: string;
}
