import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEngram } from '../../src/engram.js';
import { createSqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { startScriptedOpenAIServer } from '../support/scripted-openai-server.js';
import { useTemporaryDirectories } from '../support/temporary-directories.js';
import { engram } from './cli-process.js';

const temporaryDirectory = useTemporaryDirectories('engram-cli-knowledge-');

async function open(path: string) {
  return createEngram({
    store: await createSqliteStore({ path }),
    sweepIntervalMs: 0,
    sessionEnd: { idleMs: 0 },
  });
}

describe('engram ingest', () => {
  it('ingests a directory tree of Markdown, text and HTML, and re-ingests only what changed', async () => {
    const directory = temporaryDirectory();
    const database = join(directory, 'engram.db');
    const handbook = join(directory, 'handbook');
    mkdirSync(join(handbook, 'shipping'), { recursive: true });
    writeFileSync(join(handbook, 'returns.md'), '# Returns\nDamaged items can be returned within 30 days.\n');
    writeFileSync(join(handbook, 'faq.txt'), 'Opening hours: 9 to 5 on weekdays.\n');
    writeFileSync(
      join(handbook, 'shipping', 'rates.html'),
      '<html><head><style>h1{color:red}</style><script>track()</script></head>' +
        '<body><h1>Shipping rates</h1><p>Parcels ship free above 50 euros.</p></body></html>',
    );
    writeFileSync(join(handbook, 'logo.png'), 'not text');
    writeFileSync(join(handbook, 'empty.md'), '  \n');

    const first = await engram(['ingest', handbook, '--agent', 'support', '--db', database]);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain(
      'ingested into agent "support" (tenant "default"): 3 created, 0 deduplicated, 2 skipped, 0 failed',
    );
    expect(first.stderr).toContain('skipped 1: not Markdown, text or HTML');
    expect(first.stderr).toContain('skipped 1: empty');
    expect(first.stderr).toMatch(/ingest: 5\/5 \(100%\), [\d.]+\/s, ETA \d+s/);

    const library = await open(database);
    const documents = await library.knowledge.list('default', 'support');
    expect(documents.map((document) => document.name)).toEqual([
      'faq.txt',
      'returns.md',
      'shipping/rates.html',
    ]);
    const { context } = await library.assemble({
      agent: { id: 'support' },
      session: { sessionId: 'k' },
      message: 'Do parcels ship free?',
    });
    const knowledge = context
      .filter((message) => message.section === 'knowledge')
      .map((message) => message.content);
    expect(knowledge.join('\n')).toContain('Parcels ship free above 50 euros.');
    expect(knowledge.join('\n')).not.toContain('track()');
    await library.close();

    writeFileSync(join(handbook, 'faq.txt'), 'Opening hours: 8 to 6 on weekdays.\n');
    const second = await engram([
      'ingest',
      handbook,
      join(directory, 'missing.md'),
      '--agent',
      'support',
      '--db',
      database,
    ]);
    expect(second).toMatchObject({ code: 1, stderr: expect.stringContaining('No file or directory') });
    const third = await engram(['ingest', handbook, '--agent', 'support', '--db', database]);
    expect(third.stderr).toContain('1 created, 2 deduplicated, 2 skipped, 0 failed');
    expect(third.stderr).toContain('unchanged since the last ingest');

    const noAgent = await engram(['ingest', handbook, '--db', database]);
    expect(noAgent.code).toBe(2);
    expect(noAgent.stderr).toContain("required option '--agent <id>' not specified");
  }, 90_000);

  it('refuses a second file whose document name is taken in the same run, instead of replacing the first', async () => {
    const directory = temporaryDirectory();
    const database = join(directory, 'engram.db');
    for (const [folder, text] of [
      ['docs-a', 'Team A ships on Mondays.'],
      ['docs-b', 'Team B ships on Fridays.'],
    ] as const) {
      mkdirSync(join(directory, folder));
      writeFileSync(join(directory, folder, 'index.md'), `# Shipping\n${text}\n`);
    }
    const run = await engram([
      'ingest',
      join(directory, 'docs-a'),
      join(directory, 'docs-b'),
      '--agent',
      'support',
      '--db',
      database,
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('1 created, 0 deduplicated, 0 skipped, 1 failed');
    expect(run.stderr).toContain('document name "index.md"');
    const library = await open(database);
    const [document] = await library.knowledge.list('default', 'support');
    const { hits } = await library.memories.search('default', {
      text: 'ships',
      filter: { agentId: { eq: 'support' } },
    });
    expect(document?.name).toBe('index.md');
    expect(hits.map((hit) => hit.memory.text).join(' ')).toContain('Team A ships on Mondays.');
    await library.close();
  }, 60_000);
});

describe('engram inspect', () => {
  it("prints the last turns' traces as tables: sections, tokens, what was excluded and why", async () => {
    const database = join(temporaryDirectory(), 'engram.db');
    const library = await open(database);
    const session = { sessionId: 'chat-42', userId: 'ada' };
    const agent = { memory: { maxWorkingMemoryTokens: 200, reservedOutputTokens: 20 } };
    for (let turn = 0; turn < 8; turn++) {
      await library.sessions.append(session, [
        { role: 'user', content: `Question number ${turn} about my damaged order and the replacement.` },
        { role: 'assistant', content: `Answer number ${turn}: a replacement is on its way to you.` },
      ]);
      await library.assemble({ agent, session, message: `Follow-up ${turn}` });
    }
    await library.close();

    const printed = await engram(['inspect', 'chat-42', '--user', 'ada', '--last', '2', '--db', database]);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toContain('session chat-42: last 2 of 8 traced turns, oldest first');
    expect(printed.stdout.match(/^turn /gm)).toHaveLength(2);
    expect(printed.stdout).toMatch(/budget \d+\/180 tokens used \(max 200, 20 reserved for the answer\)/);
    expect(printed.stdout).toMatch(/│ section\s+│ tokens\s+│ cap\s+│ in\s+│ out\s+│ excluded \(why\)/);
    expect(printed.stdout).toMatch(/│ history\s+│ \d+\s+│ -\s+│ \d+\s+│ \d+\s+│ \d+ over_budget/);

    const json = await engram([
      'inspect',
      'chat-42',
      '--user',
      'ada',
      '--last',
      '1',
      '--json',
      '--db',
      database,
    ]);
    expect(JSON.parse(json.stdout)).toMatchObject({
      total: 8,
      traces: [{ sessionId: 'chat-42', userId: 'ada' }],
    });

    // Without --user, the one session with this id (as the API finds it).
    const unique = await engram(['inspect', 'chat-42', '--last', '1', '--json', '--db', database]);
    expect(JSON.parse(unique.stdout)).toMatchObject({ total: 8, traces: [{ userId: 'ada' }] });
    const otherUser = await engram(['inspect', 'chat-42', '--user', 'bob', '--db', database]);
    expect(otherUser.code).toBe(1);

    const unknown = await engram(['inspect', 'nope', '--db', database]);
    expect(unknown).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('No traces for session "nope"'),
    });
    // --json says the same by its exit status.
    expect((await engram(['inspect', 'nope', '--json', '--db', database])).code).toBe(1);

    // Two users' sessions share the id: the command says so instead of "no traces".
    const again = await open(database);
    await again.sessions.append({ sessionId: 'chat-42', userId: 'bob' }, [{ role: 'user', content: 'Hi' }]);
    await again.close();
    const ambiguous = await engram(['inspect', 'chat-42', '--db', database]);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toContain('2 sessions are named "chat-42"');
    expect(ambiguous.stderr).toContain('--user');
  }, 60_000);
});

describe('engram doctor', () => {
  it('reports versions, settings in force and that the store, embedder and LLM answer', async () => {
    const database = join(temporaryDirectory(), 'engram.db');
    const llm = await startScriptedOpenAIServer();
    try {
      llm.script({ content: 'OK' });
      const environment = {
        ENGRAM_LLM_BASE_URL: llm.baseUrl,
        ENGRAM_LLM_MODEL: 'tiny',
        ENGRAM_LLM_API_KEY: 'sk-secret',
      };
      const healthy = await engram(['doctor', '--db', database], environment);
      expect(healthy.code).toBe(0);
      expect(healthy.stdout).toMatch(/^engram \d+\.\d+\.\d+ on Node \d+/);
      expect(healthy.stdout).toMatch(/ok {4}store +sqlite .*engram\.db: not created yet/);
      expect(healthy.stdout).toMatch(/ok {4}embedder static:/);
      expect(healthy.stdout).toMatch(/ok {4}llm +http:\/\/127\.0\.0\.1:\d+\/v1 answered/);
      expect(healthy.stdout).toContain('"apiKey": "(set)"');
      expect(healthy.stdout).not.toContain('sk-secret');
      expect(llm.requests[0]?.body).toMatchObject({ model: 'tiny', max_tokens: 1 });

      // A configured embeddings endpoint is the embedder checked, and its key is never printed.
      const embeddingsEnvironment = {
        ...environment,
        ENGRAM_EMBEDDINGS_BASE_URL: llm.baseUrl,
        ENGRAM_EMBEDDINGS_MODEL: 'tiny-embed',
        ENGRAM_EMBEDDINGS_API_KEY: 'sk-embedding-secret',
      };
      llm.script(
        {
          raw: JSON.stringify({
            object: 'list',
            data: [{ object: 'embedding', index: 0, embedding: [0.6, 0.8, 0] }],
          }),
          contentType: 'application/json',
        },
        { content: 'OK' },
      );
      const embedding = await engram(['doctor', '--db', database], embeddingsEnvironment);
      expect(embedding.code).toBe(0);
      expect(embedding.stdout).toMatch(
        /ok {4}embedder http:\/\/127\.0\.0\.1:\d+\/v1 \(openai:tiny-embed\) answered 3 dimensions/,
      );
      expect(llm.requests.at(-2)?.url).toMatch(/\/embeddings$/);
      expect(embedding.stdout).not.toContain('sk-embedding-secret');
      expect(embedding.stdout).not.toContain('sk-secret');

      // `--store` is the store checked (here one that refuses), its password never printed.
      const postgres = await engram(
        ['doctor', '--store', 'postgres://engram:hunter2@127.0.0.1:1/engram', '--db', database],
        {},
      );
      expect(postgres.code).toBe(1);
      expect(postgres.stdout).toMatch(
        /FAIL {2}store +postgres postgres:\/\/engram:\*\*\*@127\.0\.0\.1:1\/engram: /,
      );
      expect(postgres.stdout).not.toContain('hunter2');

      // A database path under a file can never be created: said now, not at the first write.
      const plainFile = join(temporaryDirectory(), 'not-a-folder');
      writeFileSync(plainFile, '');
      const underFile = await engram(['doctor', '--db', join(plainFile, 'engram.db')], {});
      expect(underFile.code).toBe(1);
      expect(underFile.stdout).toMatch(/FAIL {2}store +sqlite .*: cannot be created: .* is not a directory/);

      llm.script({ status: 401, body: { error: { message: 'bad key' } } });
      const failing = await engram(['doctor', '--json', '--db', database], environment);
      expect(failing.code).toBe(1);
      const report = JSON.parse(failing.stdout) as { checks: { name: string; ok: boolean }[] };
      expect(report.checks.map((check) => [check.name, check.ok])).toEqual([
        ['store', true],
        ['embedder', true],
        ['llm', false],
      ]);
    } finally {
      await llm.close();
    }
  }, 60_000);

  it('--version prints the package version', async () => {
    expect((await engram(['--version'])).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
