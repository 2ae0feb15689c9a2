import { useState } from 'preact/hooks';
import { api } from '../api-client.js';
import type { Job } from '../api-types.js';
import { ErrorNotice } from '../components/error-notice.js';
import { Pager } from '../components/pager.js';
import { useInterval, useLoad } from '../use-load.js';

const LIMIT = 50;

/** Background jobs (summaries, extraction, promotion, episodes) with state, attempts and errors. */
export function JobsPage() {
  const [status, setStatus] = useState('');
  const [type, setType] = useState('');
  const [offset, setOffset] = useState(0);
  const jobs = useLoad(JSON.stringify([status, type, offset]), () =>
    api<{ jobs: Job[]; total: number }>('GET', '/v1/jobs', { query: { status, type, limit: LIMIT, offset } }),
  );
  useInterval(jobs.reload, 5_000, !jobs.error);
  return (
    <div>
      <div class="toolbar">
        <label>
          Status
          <select
            value={status}
            onChange={(event) => {
              setOffset(0);
              setStatus(event.currentTarget.value);
            }}
          >
            <option value="">any</option>
            <option value="pending">pending</option>
            <option value="running">running</option>
            <option value="succeeded">succeeded</option>
            <option value="failed">failed</option>
          </select>
        </label>
        <label>
          Type
          <input
            value={type}
            placeholder="e.g. end-session"
            onChange={(event) => {
              setOffset(0);
              setType(event.currentTarget.value);
            }}
          />
        </label>
      </div>
      <ErrorNotice error={jobs.error} />
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th>type</th>
              <th>state</th>
              <th class="number">attempts</th>
              <th>about</th>
              <th>created</th>
              <th>finished</th>
              <th>error</th>
            </tr>
          </thead>
          <tbody>
            {jobs.data?.jobs.map((job) => (
              <tr key={job.id} class={`job-${job.status}`}>
                <td>
                  {job.type}
                  <div class="muted">
                    <code>{job.id}</code>
                  </div>
                </td>
                <td>
                  <span class={`badge status-${job.status}`}>{job.status}</span>
                </td>
                <td class="number">
                  {job.attempts} / {job.max_attempts}
                </td>
                <td>
                  {Object.entries(job.payload)
                    .map(([key, value]) => `${key}: ${value}`)
                    .join(', ')}
                </td>
                <td>{new Date(job.created_at).toLocaleString()}</td>
                <td>{job.completed_at ? new Date(job.completed_at).toLocaleString() : ''}</td>
                <td>
                  {job.error ? `${job.error.code ? `${job.error.code}: ` : ''}${job.error.message}` : ''}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {jobs.data ? (
        <Pager
          label="Pages of jobs"
          offset={offset}
          limit={LIMIT}
          total={jobs.data.total}
          onChange={setOffset}
        />
      ) : null}
    </div>
  );
}
