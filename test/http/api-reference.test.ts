import { describe, expect, it } from 'vitest';
import { useTestServer } from './test-server.js';

describe('GET /docs: the interactive API reference', () => {
  const server = useTestServer({ auth: { mode: 'enabled' } });

  it('serves an HTML page whose every asset is same-origin and loads, without a credential', async () => {
    const response = await server().request('/docs');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await response.text();
    expect(html).not.toMatch(/https?:\/\//);
    const references = [...html.matchAll(/\s(?:src|href)="([^"]+)"/g)].map((match) => match[1] as string);
    expect(references).toEqual(
      expect.arrayContaining([
        '/docs/swagger-ui.css',
        '/docs/swagger-ui-bundle.js',
        '/docs/api-reference.js',
      ]),
    );
    for (const reference of references) {
      expect(reference, 'a same-origin path').toMatch(/^\/(?!\/)/);
      const asset = await server().request(reference);
      expect(asset.status, reference).toBe(200);
      expect((await asset.arrayBuffer()).byteLength, reference).toBeGreaterThan(0);
    }
    const bundle = await server().request('/docs/swagger-ui-bundle.js');
    expect(bundle.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await bundle.text()).toContain('SwaggerUIBundle');
  });

  it('points Swagger UI at this server’s /openapi.json, which lists /docs', async () => {
    const start = await (await server().request('/docs/api-reference.js')).text();
    expect(start).toContain("url: '/openapi.json'");
    const document = (await (await server().request('/openapi.json')).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(document.paths)).toContain('/docs');
  });

  it('answers 404 for a file that is not one of the page’s, including paths out of the package', async () => {
    for (const file of ['package.json', '..%2Fpackage.json', 'index.html', 'constructor']) {
      expect((await server().request(`/docs/${file}`)).status, file).toBe(404);
    }
  });
});
