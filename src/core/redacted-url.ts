/** How {@link redactedUrl} treats parts that are not secret for every kind of URL. */
export interface RedactedUrlOptions {
  /** Show the user name (a PostgreSQL role is not a secret; a provider's user name may be a key). */
  keepUsername?: boolean;
  /** Query parameters whose values are shown; every other value reads `***` (an allow-list). */
  shownParameter?: (name: string) => boolean;
}

const HIDDEN = '***';

/**
 * A URL as messages and logs may show it: the password, the user name and every query value
 * (`?api-key=…`) read `***` unless `options` keeps them. A URL that does not parse is not shown.
 */
export function redactedUrl(url: string, options: RedactedUrlOptions = {}): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '(unparsable URL)';
  }
  if (parsed.password) parsed.password = HIDDEN;
  if (parsed.username && !options.keepUsername) parsed.username = HIDDEN;
  const shown = options.shownParameter ?? (() => false);
  for (const name of new Set(parsed.searchParams.keys())) {
    if (!shown(name)) parsed.searchParams.set(name, HIDDEN);
  }
  return parsed.toString();
}

/** `text` with `url` (as given or as normalized by URL parsing) replaced by its redacted form. */
export function withoutUrlSecrets(text: string, url: string, options: RedactedUrlOptions = {}): string {
  const shown = redactedUrl(url, options);
  let result = text.replaceAll(url, shown);
  try {
    result = result.replaceAll(new URL(url).href, shown);
  } catch {
    // Not a URL: only its exact text was replaced.
  }
  return result;
}

/**
 * `error` for use as a cause: itself when its message does not quote `url`, else a copy whose
 * message and stack show the redacted URL (fetch rejects a URL with credentials by quoting it).
 */
export function causeWithoutUrlSecrets(error: unknown, url: string): unknown {
  if (!(error instanceof Error)) return error;
  const message = withoutUrlSecrets(error.message, url);
  if (message === error.message) return error;
  const copy = new Error(message);
  copy.name = error.name;
  copy.stack = error.stack === undefined ? undefined : withoutUrlSecrets(error.stack, url);
  return copy;
}
