/** Built-in word lists for fictional firm names, street addresses and `.example` web sites. */
import { pick, randInt, type Rng } from './rng.ts';

const SURNAMES = (
  'Abbott Acosta Adler Alvarez Anders Archer Avery Baird Baker Banks Barrett Becker Bell Bennett Berg Bishop Blake Boone ' +
  'Bowen Boyd Bradley Brennan Brooks Burke Byrne Caldwell Callahan Carver Castillo Chandler Chen Clarke Coleman Collins ' +
  'Conway Cortez Crane Cruz Dalton Daniels Delgado Dixon Donovan Doyle Drake Duffy Ellis Emerson Estrada Farrell Fischer ' +
  'Fleming Flores Flynn Ford Foster Frazier Gallagher Garcia Garner Gibson Goldberg Gomez Graham Grant Greene Griffin ' +
  'Gupta Hale Hamilton Hansen Harper Hayes Hendricks Herrera Hoffman Holland Horton Hughes Hunt Jacobs Jensen Kane ' +
  'Kaplan Keller Kennedy Khan Kim Klein Knox Kowalski Lambert Lane Larson Levine Lin Logan Lopez Lowe Lynch Madden Malone ' +
  'Marsh Martinez Mason McCarthy McKenzie Medina Meyer Miles Monroe Moreno Morgan Murphy Nash Nguyen Novak Nolan Ortega ' +
  'Owens Park Patel Pearson Perry Pierce Porter Quinn Ramirez Reed Reyes Rhodes Rivera Rosen Ross Russo Ryan Salazar ' +
  'Sanders Schwartz Shaw Sheridan Silva Sloan Spencer Stein Stone Sullivan Tate Torres Tucker Vance Vargas Walsh Ward ' +
  'Warner Watts Weber Weiss Wheeler Whitaker Wolfe Wong Wright Young Zimmerman'
).split(' ');

const FIRST_NAMES = (
  'Aaron Adam Alan Alicia Amy Andrea Ben Brian Carla Carlos Christine Daniel David Diana Elena Eric Frank Gloria Grace ' +
  'Henry Irene Jack James Jason Jennifer Joan John Jorge Julia Karen Kevin Laura Linda Lisa Marcus Maria Mark Michael ' +
  'Monica Nancy Nathan Olivia Paul Rachel Raj Rebecca Robert Ruth Samuel Sandra Sarah Sean Steven Susan Thomas Victor'
).split(' ');

const STREETS = (
  'Main Oak Maple Cedar Pine Elm Washington Lincoln Jefferson Madison Franklin Park Lake Hill Church Market Spring ' +
  'Center Union Broad Highland Walnut Chestnut Sunset Grand Commerce Liberty Meadow River Bay Harbor Ridge Valley ' +
  'Willow Magnolia Peachtree Camino Mission Canal Court Front Water State Pearl Adams Monroe Jackson Wilson Clinton'
).split(' ');
const STREET_SUFFIXES = ['St', 'Ave', 'Blvd', 'Rd', 'Dr', 'Way', 'Pkwy', 'Ln', 'Pl', 'Plaza'];
const DIRECTIONS = ['N', 'S', 'E', 'W'];

/** A fictional firm name such as "Harper & Nolan Injury Law". */
export function firmName(rng: Rng): string {
  const a = pick(rng, SURNAMES);
  let b = pick(rng, SURNAMES);
  while (b === a) b = pick(rng, SURNAMES);
  const c = pick(rng, SURNAMES);
  const first = pick(rng, FIRST_NAMES);
  const x = rng();
  if (x < 0.22) return `${a} & ${b} Injury Law`;
  if (x < 0.36) return `${a} Injury Lawyers`;
  if (x < 0.48) return `Law Offices of ${first} ${a}`;
  if (x < 0.58) return `${a} Law Group`;
  if (x < 0.67) return `${a} & ${b}, P.C.`;
  if (x < 0.75) return `${a}, ${b} & ${c} Accident Attorneys`;
  if (x < 0.82) return `${a} & Associates`;
  if (x < 0.88) return `${first} ${a} Personal Injury Attorney`;
  if (x < 0.94) return `${a} ${b} Trial Lawyers`;
  return `The ${a} Firm`;
}

/** Lower-case hyphenated slug of a name ("Harper & Nolan, P.C." -> "harper-nolan-pc"). */
export function slugify(name: string): string {
  return name
    .toLowerCase()
    .replace(/&/g, ' ')
    .replace(/[^a-z0-9\s-]/g, '')
    .trim()
    .replace(/[\s-]+/g, '-');
}

/** A fictional street address, sometimes with a suite or floor. */
export function streetAddress(rng: Rng): string {
  const number = rng() < 0.7 ? randInt(rng, 100, 9999) : randInt(rng, 10, 29999);
  const dir = rng() < 0.2 ? `${pick(rng, DIRECTIONS)} ` : '';
  const street = `${number} ${dir}${pick(rng, STREETS)} ${pick(rng, STREET_SUFFIXES)}`;
  const x = rng();
  if (x < 0.35) return `${street} Suite ${randInt(rng, 1, 30) * 100 + randInt(rng, 0, 20)}`;
  if (x < 0.45) return `${street} Ste ${randInt(rng, 100, 999)}`;
  if (x < 0.52) return `${street} Floor ${randInt(rng, 2, 40)}`;
  return street;
}
