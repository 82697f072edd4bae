import { describe, expect, it } from 'vitest';
import { spelledOut } from '../shim/places/abbreviations.ts';

describe('spelledOut', () => {
  it("spells out a leading direction's initial and USPS suffix abbreviations", () => {
    expect(spelledOut('N. Las Vegas')).toBe('North Las Vegas');
    expect(spelledOut('W Palm Beach')).toBe('West Palm Beach');
    expect(spelledOut('Arlington Hts')).toBe('Arlington Heights');
    expect(spelledOut('Colorado Spgs')).toBe('Colorado Springs');
    expect(spelledOut('Grand Jct')).toBe('Grand Junction');
  });

  it('leaves a name without them, a lone letter and a direction inside a name as they are', () => {
    for (const name of ['Las Vegas', 'N', 'Port St Lucie', 'Winston-Salem', 'Kansas City'])
      expect(spelledOut(name)).toBe(name);
    // Only the first word is a direction: "Columbia S" is not "Columbia South".
    expect(spelledOut('Columbia S')).toBe('Columbia S');
  });
});
