/**
 * The page a person's browser gets instead of a problem+json body when something goes wrong (404, 429, 500, 503): in
 * the site's shell, saying what happened in plain words and what to do next. API callers keep the problem+json.
 */
import { esc, shell } from './page-layout.ts';
import { humanWait, clockAfter } from '../lib/human-wait.ts';
import { problemPath } from './problem-pages.ts';
import type { ProblemCodeT } from '../contract/schemas.ts';

/** What the page is made from. */
export interface ErrorPageInput {
  status: number;
  code: ProblemCodeT;
  /** The path the person asked for. */
  path: string;
  /** Seconds until a retry can succeed (Retry-After), when the answer gave one. */
  retryAfterSeconds: number | null;
  /** The time of the answer, to say when the wait ends. */
  now: Date;
}

/** Statuses answered with a page for people. */
export const ERROR_PAGE_STATUSES: ReadonlySet<number> = new Set([404, 429, 500, 503]);

const SEARCH_AGAIN =
  '<li>Search for injury law offices near a ZIP code or city on <a href="/">the search page</a>.</li>';

function notFound(path: string): { title: string; lede: string; next: string[] } {
  const metro = /^\/metros\/([a-z0-9][a-z0-9.-]{0,80})$/.exec(path);
  return {
    title: 'Page not found',
    lede:
      metro?.[1] !== undefined
        ? `There is no measured metro called “${esc(metro[1])}”. Only the metros listed on the search page are measured.`
        : `There is no page at <code>${esc(path)}</code>. The address may be mistyped, or the page may have moved.`,
    next: [
      SEARCH_AGAIN,
      '<li>See <a href="/#metros">the measured metros</a> and how concentrated map visibility is in each.</li>',
      '<li>Building on the API? Its paths are in <a href="/docs">the API reference</a>.</li>',
    ],
  };
}

function wait(input: ErrorPageInput, fallbackSeconds: number): { words: string; clock: string } {
  const seconds = input.retryAfterSeconds ?? fallbackSeconds;
  return { words: humanWait(seconds), clock: clockAfter(input.now, seconds) };
}

function content(input: ErrorPageInput): { title: string; lede: string; next: string[] } {
  switch (input.status) {
    case 404:
      return notFound(input.path);
    case 429: {
      const { words, clock } = wait(input, 3600);
      return {
        title: 'Too many requests from your network',
        lede: `More requests came from your network address than this service answers in an hour (everyone on the same network shares the count). You can search again in about ${words}, at ${clock}.`,
        next: [
          `<li>Wait until ${clock}, then reload this page.</li>`,
          '<li>If you are building on the API, keep to the quota its <code>RateLimit-Policy</code> header states; copying the directory in bulk is against <a href="/terms">the terms of use</a>.</li>',
        ],
      };
    }
    case 503: {
      const { words } = wait(input, 30);
      return {
        title: 'The directory is unavailable for a moment',
        lede: `The directory data could not be read just now. Nothing is wrong with your request, and no partial answer is shown in its place. Try again in ${words}.`,
        next: ['<li>Reload this page in a little while.</li>', SEARCH_AGAIN.replace('Search', 'Or search')],
      };
    }
    default:
      return {
        title: 'Something went wrong on our side',
        lede: 'The service failed to answer for a reason of its own; nothing about your request is wrong.',
        next: [
          '<li>Reload this page in a minute.</li>',
          '<li>If it keeps happening, tell the operator: the address is on <a href="/corrections">the corrections page</a>.</li>',
        ],
      };
  }
}

/** The HTML of the page for `input`. */
export function errorPageHtml(input: ErrorPageInput): string {
  const { title, lede, next } = content(input);
  const main = [
    `<h1>${esc(title)}</h1>`,
    `<p class="lede">${lede}</p>`,
    '<h2>What you can do</h2>',
    `<ul>\n${next.join('\n')}\n</ul>`,
    `<p class="hint">HTTP status ${input.status}, problem code <a href="${problemPath(input.code)}"><code>${esc(input.code)}</code></a>.</p>`,
  ].join('\n');
  // No navigation link is marked current: the page is none of them.
  return shell({ title: `${title} – Injury Attorney Directory`, description: title, path: '', main });
}
