import { useState } from 'preact/hooks';
import { api } from '../api-client.js';
import { ErrorNotice } from '../components/error-notice.js';

interface ForgetAnswer {
  scanned: number;
  deleted: number;
  deleted_ids: string[];
  dry_run: boolean;
}

/** The route's default and largest `limit`: how many memories in scope one run looks at, oldest first. */
export const FORGET_DEFAULT_LIMIT = 1_000;
export const FORGET_MAX_LIMIT = 100_000;

interface Policy {
  max_age_days: string;
  max_inactive_days: string;
  user_id: string;
  namespace: string;
  limit: string;
}

/** `limit` as the route takes it: a whole number in 1…100,000 (the default when empty). */
const limitOf = (text: string) => {
  const value = Math.floor(Number(text));
  if (text.trim() === '' || !Number.isFinite(value)) return FORGET_DEFAULT_LIMIT;
  return Math.min(FORGET_MAX_LIMIT, Math.max(1, value));
};

/**
 * Forget by policy (age, inactivity): a dry run first shows what would go, then a confirmed run of
 * the same policy. One run looks at most at `limit` memories in scope (oldest first); an answer that
 * reached it says so, since more memories may match beyond it.
 */
export function ForgetPanel({ onDone }: { onDone: () => void }) {
  const [policy, setPolicy] = useState<Policy>({
    max_age_days: '',
    max_inactive_days: '',
    user_id: '',
    namespace: '',
    limit: String(FORGET_DEFAULT_LIMIT),
  });
  // The answer with the policy it ran: "Forget them" runs that one, not fields edited since.
  const [answer, setAnswer] = useState<{ result: ForgetAnswer; policy: Policy; limit: number } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const run = (dryRun: boolean, ran: Policy) => {
    setError(null);
    const limit = limitOf(ran.limit);
    api<ForgetAnswer>('POST', '/v1/long-term-memory/forget', {
      query: { user_id: ran.user_id, namespace: ran.namespace, dry_run: dryRun, limit },
      body: {
        policy: {
          max_age_days: ran.max_age_days ? Number(ran.max_age_days) : null,
          max_inactive_days: ran.max_inactive_days ? Number(ran.max_inactive_days) : null,
        },
      },
    }).then((result) => {
      setAnswer({ result, policy: ran, limit });
      if (!dryRun) onDone();
    }, setError);
  };
  const field = (name: keyof Policy, label: string, type = 'text', max?: number) => (
    <label>
      {label}
      <input
        type={type}
        min={type === 'number' ? (name === 'limit' ? 1 : 0) : undefined}
        max={max}
        value={policy[name]}
        onInput={(event) => setPolicy({ ...policy, [name]: event.currentTarget.value })}
      />
    </label>
  );
  const result = answer?.result;
  // The scan stopped at the limit: memories past it (newer ones) were not looked at.
  const capped = answer !== null && result !== undefined && result.scanned >= answer.limit;
  return (
    <details class="panel">
      <summary>Forget by policy</summary>
      <form
        class="toolbar"
        aria-label="Forget policy"
        onSubmit={(event) => {
          event.preventDefault();
          run(true, policy);
        }}
      >
        {field('max_age_days', 'Older than (days)', 'number')}
        {field('max_inactive_days', 'Not accessed for (days)', 'number')}
        {field('user_id', 'User id')}
        {field('namespace', 'Namespace')}
        {field('limit', 'Scan at most (memories, oldest first)', 'number', FORGET_MAX_LIMIT)}
        <button type="submit">Dry run</button>
      </form>
      <ErrorNotice error={error} />
      {answer && result ? (
        <div class="forget-answer">
          <p>
            {result.dry_run ? 'Would forget' : 'Forgot'} {result.deleted} of {result.scanned} scanned.{' '}
            {result.dry_run && result.deleted > 0 ? (
              <button
                type="button"
                class="danger"
                onClick={() => confirm(`Forget ${result.deleted} memories?`) && run(false, answer.policy)}
              >
                Forget them
              </button>
            ) : null}
          </p>
          {capped ? (
            <p class="notice forget-limit" role="status">
              The scan stopped at its limit of {answer.limit.toLocaleString('en')} memories (the oldest in
              scope): newer memories were not looked at, and more may match.{' '}
              {result.dry_run
                ? answer.limit < FORGET_MAX_LIMIT
                  ? `Raise “Scan at most” (up to ${FORGET_MAX_LIMIT.toLocaleString('en')}) and run the dry run again, or forget these and continue.`
                  : 'Forget these, then run again to continue.'
                : null}
              {!result.dry_run && result.deleted > 0 ? (
                <button type="button" onClick={() => run(true, answer.policy)}>
                  Continue: dry run on the next {answer.limit.toLocaleString('en')}
                </button>
              ) : null}
            </p>
          ) : null}
        </div>
      ) : null}
    </details>
  );
}
