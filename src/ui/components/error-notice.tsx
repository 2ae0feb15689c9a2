import { ApiError } from '../api-client.js';

/** An error as a person reads it; a 403 says that the role, not the input, is the problem. */
export function ErrorNotice({ error }: { error: unknown }) {
  if (!error) return null;
  if (error instanceof ApiError && error.status === 403) {
    return (
      <div class="notice error" role="alert">
        <strong>Forbidden (403).</strong> Your API key’s role may not do this: {error.message}
      </div>
    );
  }
  const text = error instanceof Error ? error.message : String(error);
  const status = error instanceof ApiError && error.status > 0 ? ` (${error.status})` : '';
  return (
    <div class="notice error" role="alert">
      <strong>Error{status}.</strong> {text}
    </div>
  );
}
