import { describe, expect, it } from 'vitest';
import { shapeHint } from '../shim/places/shape-hints.ts';

describe('shapeHint', () => {
  it('names the two places of a name joined by or, and, & or a slash', () => {
    for (const [sent, a, b] of [
      ['Dallas or Fort Worth', 'Dallas', 'Fort Worth'],
      ['Plano and Frisco', 'Plano', 'Frisco'],
      ['Dallas & Fort Worth', 'Dallas', 'Fort Worth'],
      ['Tampa/St. Pete', 'Tampa', 'St. Pete'],
    ] as const)
      expect(shapeHint(sent), sent).toContain(`(${JSON.stringify(a)} and ${JSON.stringify(b)})`);
  });

  it('reads a sentence as one, offering the words after its last "in", "near" or "at" when they are few', () => {
    expect(shapeHint('I was in an accident in Dallas')).toContain('(perhaps "Dallas")');
    expect(shapeHint('I got hit by a car near Fort Worth.')).toContain('(perhaps "Fort Worth")');
    expect(shapeHint('I need a lawyer')).toBe(' It reads as a sentence: send only the place, as "City, ST" or a ZIP.');
  });

  it('says nothing of a name that is only a name', () => {
    for (const sent of ['Springfield', 'Winston-Salem', 'St. Louis', 'Port St. Lucie'])
      expect(shapeHint(sent), sent).toBe('');
  });
});
