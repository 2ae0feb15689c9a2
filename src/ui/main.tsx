import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, apiKey, onUnauthorized } from './api-client.js';
import type { Whoami } from './api-types.js';
import { ErrorNotice } from './components/error-notice.js';
import { InspectorPage } from './pages/inspector-page.js';
import { JobsPage } from './pages/jobs-page.js';
import { MemoriesPage } from './pages/memories-page.js';
import { ProceduresPage } from './pages/procedures-page.js';
import { SessionsPage } from './pages/sessions-page.js';
import { WorkingSetPage } from './pages/working-set-page.js';
import { hrefOf, pages, type Route, useRoute } from './route.js';
import { WhoamiContext } from './whoami-context.js';

/** With authentication on, the page asks for a key; it is kept in session storage only. */
function KeyPrompt({ rejected, onKey }: { rejected: boolean; onKey: () => void }) {
  const [key, setKey] = useState('');
  return (
    <main class="login">
      <h1>engram</h1>
      <form
        aria-label="Sign in"
        onSubmit={(event) => {
          event.preventDefault();
          apiKey.set(key.trim());
          onKey();
        }}
      >
        <p>This server requires an API key (or a JWT). The key stays in this tab’s session storage.</p>
        {rejected ? (
          <p class="notice error" role="alert">
            That key was not accepted.
          </p>
        ) : null}
        <label>
          API key
          <input
            name="api-key"
            type="password"
            autocomplete="off"
            required
            value={key}
            onInput={(event) => setKey(event.currentTarget.value)}
          />
        </label>
        <button type="submit">Sign in</button>
      </form>
    </main>
  );
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'sessions':
      return <SessionsPage params={route.params} />;
    case 'inspector':
      return <InspectorPage params={route.params} />;
    case 'working-set':
      return <WorkingSetPage params={route.params} />;
    case 'memories':
      return <MemoriesPage />;
    case 'procedures':
      return <ProceduresPage params={route.params} />;
    case 'jobs':
      return <JobsPage />;
  }
}

function App() {
  const route = useRoute();
  const [whoami, setWhoami] = useState<Whoami | null>(null);
  const [state, setState] = useState<'loading' | 'ready' | 'key' | 'rejected' | 'failed'>('loading');
  const [error, setError] = useState<unknown>(null);
  const check = () => {
    const hadKey = apiKey.get() !== null;
    return api<Whoami>('GET', '/v1/whoami').then(
      (answer) => {
        setWhoami(answer);
        setState('ready');
      },
      (reason: unknown) => {
        if (reason instanceof ApiError && reason.status === 401) {
          apiKey.clear();
          setState(hadKey ? 'rejected' : 'key');
        } else {
          setError(reason);
          setState('failed');
        }
      },
    );
  };
  useEffect(() => {
    check();
    return onUnauthorized(() => {
      apiKey.clear();
      setState('rejected');
    });
  }, []);
  const title = pages.find((page) => page.id === route.page)?.title ?? '';
  useEffect(() => {
    document.title = `${title} · engram`;
  }, [title]);
  if (state === 'loading') return <p class="loading">Loading engram…</p>;
  if (state === 'key' || state === 'rejected')
    return <KeyPrompt rejected={state === 'rejected'} onKey={check} />;
  if (state === 'failed') return <ErrorNotice error={error} />;
  return (
    <WhoamiContext.Provider value={whoami}>
      <header class="top">
        <a class="brand" href={hrefOf('sessions')}>
          engram
        </a>
        <nav aria-label="Main">
          {pages.map((page) => (
            <a
              key={page.id}
              href={hrefOf(page.id)}
              aria-current={page.id === route.page ? 'page' : undefined}
            >
              {page.title}
            </a>
          ))}
        </nav>
        <span class="who">
          tenant <strong>{whoami?.tenant_id}</strong> · {whoami?.role}
          {whoami?.authentication ? (
            <button
              type="button"
              class="small"
              onClick={() => {
                apiKey.clear();
                setWhoami(null);
                setState('key');
              }}
            >
              Sign out
            </button>
          ) : (
            <span class="muted"> · authentication off</span>
          )}
        </span>
      </header>
      <main id="main">
        <h1>{title}</h1>
        <Page route={route} />
      </main>
    </WhoamiContext.Provider>
  );
}

const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(<App />, root);
}
