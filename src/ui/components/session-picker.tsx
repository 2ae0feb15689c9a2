import { useEffect, useState } from 'preact/hooks';
import { hrefOf, type PageId } from '../route.js';

export interface SessionFields {
  session_id: string;
  namespace: string;
  user_id: string;
}

/**
 * Names a session (id, namespace, user) and opens it on `page` (the choice lives in the URL hash).
 * The fields follow `value`: a session opened elsewhere (a link, Back) shows here, not a stale one.
 */
export function SessionPicker({
  page,
  value,
  extra = {},
}: {
  page: PageId;
  value: SessionFields;
  extra?: Record<string, string>;
}) {
  const [fields, setFields] = useState(value);
  useEffect(
    () => setFields({ session_id: value.session_id, namespace: value.namespace, user_id: value.user_id }),
    [value.session_id, value.namespace, value.user_id],
  );
  const field = (name: keyof SessionFields, label: string) => (
    <label>
      {label}
      <input
        name={name}
        value={fields[name]}
        onInput={(event) => setFields({ ...fields, [name]: event.currentTarget.value })}
      />
    </label>
  );
  return (
    <form
      class="toolbar"
      aria-label="Session"
      onSubmit={(event) => {
        event.preventDefault();
        location.hash = hrefOf(page, { ...fields, ...extra });
      }}
    >
      {field('session_id', 'Session id')}
      {field('namespace', 'Namespace')}
      {field('user_id', 'User id')}
      <button type="submit">Open</button>
    </form>
  );
}
