import { useState } from 'preact/hooks';
import { api } from '../api-client.js';
import { ErrorNotice } from '../components/error-notice.js';

interface ForgetAnswer {
  scanned: number;
  deleted: number;
  deleted_ids: string[];
  dry_run: boolean;
}

/** Forget by policy (age, inactivity): a dry run first shows what would go, then a confirmed run. */
export function ForgetPanel({ onDone }: { onDone: () => void }) {
  const [policy, setPolicy] = useState({
    max_age_days: '',
    max_inactive_days: '',
    user_id: '',
    namespace: '',
  });
  const [answer, setAnswer] = useState<ForgetAnswer | null>(null);
  const [error, setError] = useState<unknown>(null);
  const run = (dryRun: boolean) => {
    setError(null);
    api<ForgetAnswer>('POST', '/v1/long-term-memory/forget', {
      query: { user_id: policy.user_id, namespace: policy.namespace, dry_run: dryRun },
      body: {
        policy: {
          max_age_days: policy.max_age_days ? Number(policy.max_age_days) : null,
          max_inactive_days: policy.max_inactive_days ? Number(policy.max_inactive_days) : null,
        },
      },
    }).then((result) => {
      setAnswer(result);
      if (!dryRun) onDone();
    }, setError);
  };
  const field = (name: keyof typeof policy, label: string, type = 'text') => (
    <label>
      {label}
      <input
        type={type}
        min={0}
        value={policy[name]}
        onInput={(event) => setPolicy({ ...policy, [name]: event.currentTarget.value })}
      />
    </label>
  );
  return (
    <details class="panel">
      <summary>Forget by policy</summary>
      <form
        class="toolbar"
        aria-label="Forget policy"
        onSubmit={(event) => {
          event.preventDefault();
          run(true);
        }}
      >
        {field('max_age_days', 'Older than (days)', 'number')}
        {field('max_inactive_days', 'Not accessed for (days)', 'number')}
        {field('user_id', 'User id')}
        {field('namespace', 'Namespace')}
        <button type="submit">Dry run</button>
      </form>
      <ErrorNotice error={error} />
      {answer ? (
        <p>
          {answer.dry_run ? 'Would forget' : 'Forgot'} {answer.deleted} of {answer.scanned} scanned.{' '}
          {answer.dry_run && answer.deleted > 0 ? (
            <button
              type="button"
              class="danger"
              onClick={() => confirm(`Forget ${answer.deleted} memories?`) && run(false)}
            >
              Forget them
            </button>
          ) : null}
        </p>
      ) : null}
    </details>
  );
}
