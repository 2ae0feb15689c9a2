import { truncateText } from '../core/preview-value.js';

/** Longest request URL a log line keeps: ids are at most 256 characters, a path holds two or three. */
const MAX_LOGGED_URL_CHARS = 1_000;

/**
 * Query parameters whose values a log line keeps: ids, numbers, flags and names of things. Any
 * other (`query` of the working set is a user's words; an unknown one may be anything) is logged
 * as `name=…`: an allow-list, so a parameter added later stays out of logs until someone adds it.
 */
const LOGGED_QUERY_PARAMETERS = new Set([
  'namespace',
  'user_id',
  'session_id',
  'limit',
  'offset',
  'model_name',
  'context_window_max',
  'recent_messages_limit',
  'include_summarized',
  'memory_ids',
  'optimize_query',
  'before_version',
  'dry_run',
  'status',
  'type',
  'memory_type',
]);

/** The request URL as the `request` log line holds it: content-free query values, bounded. */
export function loggedUrl(url: string): string {
  const question = url.indexOf('?');
  if (question < 0) return truncateText(url, MAX_LOGGED_URL_CHARS);
  const parameters = url
    .slice(question + 1)
    .split('&')
    .map((part) => {
      const equals = part.indexOf('=');
      const name = equals < 0 ? part : part.slice(0, equals);
      return equals < 0 || LOGGED_QUERY_PARAMETERS.has(name) ? part : `${name}=…`;
    });
  return truncateText(`${url.slice(0, question)}?${parameters.join('&')}`, MAX_LOGGED_URL_CHARS);
}
