import type { FastifyInstance } from 'fastify';
import type { Engram } from '../../engram.js';
import { tenantOf } from '../auth/principal.js';
import { readBody, readPath, readQuery } from '../request-parts.js';
import {
  agentPathSchema,
  agentResponseSchema,
  createAgentBodySchema,
  listAgentsQuerySchema,
  listAgentsResponseSchema,
  toAgentBody,
  toMemoryConfigInput,
  updateAgentBodySchema,
} from './agent-schemas.js';
import { conditionalWrite, entityTag } from './entity-tag.js';
import { extensionRoute } from './extension-route.js';
import { ifMatchVersion } from './if-match-version.js';

/** The agent's version as an entity tag, for If-Match on its next update. */
const AGENT_ETAG = { ETag: 'The agent version, `"<version>"`: send it back as If-Match' };
const tags = ['agents'];

/** Agents: CRUD of system prompt and memory config. Reads need `read`, writes `admin`. */
export function registerAgentRoutes(app: FastifyInstance, engram: Engram): void {
  app.get(
    '/v1/agents',
    {
      config: extensionRoute({
        summary: 'List agents',
        tags,
        query: listAgentsQuerySchema,
        response: listAgentsResponseSchema,
      }),
    },
    async (request) => {
      const page = readQuery(request, listAgentsQuerySchema);
      const { agents, total } = await engram.agents.list(tenantOf(request), page);
      return { agents: agents.map(toAgentBody), total };
    },
  );

  app.post(
    '/v1/agents',
    {
      config: extensionRoute(
        {
          summary: 'Create an agent',
          description: 'An existing id is 409 `version_conflict`.',
          tags,
          body: createAgentBodySchema,
          response: agentResponseSchema,
          status: 201,
          responseHeaders: AGENT_ETAG,
          errors: { 409: 'An agent with this id exists' },
        },
        'admin',
      ),
    },
    async (request, reply) => {
      const body = readBody(request, createAgentBodySchema);
      const agent = await engram.agents.create(tenantOf(request), {
        ...(body.id === undefined ? {} : { id: body.id }),
        ...(body.system_prompt === undefined ? {} : { systemPrompt: body.system_prompt }),
        ...(body.memory === undefined ? {} : { memory: toMemoryConfigInput(body.memory) }),
      });
      reply.header('etag', entityTag(agent.version));
      return reply.status(201).send(toAgentBody(agent));
    },
  );

  app.get(
    '/v1/agents/:agent_id',
    {
      config: extensionRoute({
        summary: 'Read an agent',
        tags,
        params: agentPathSchema,
        response: agentResponseSchema,
        responseHeaders: AGENT_ETAG,
      }),
    },
    async (request, reply) => {
      const { agent_id } = readPath(request, agentPathSchema);
      const agent = await engram.agents.get(tenantOf(request), agent_id);
      reply.header('etag', entityTag(agent.version));
      return toAgentBody(agent);
    },
  );

  app.patch(
    '/v1/agents/:agent_id',
    {
      config: extensionRoute(
        {
          summary: 'Update an agent',
          description:
            '`system_prompt` is replaced; `memory` keys replace the stored ones. `If-Match: "<version>"` ' +
            'makes it conditional (412 on mismatch); without it concurrent edits are merged.',
          tags,
          params: agentPathSchema,
          body: updateAgentBodySchema,
          response: agentResponseSchema,
          headers: {
            'If-Match': 'Update only if the agent is still at this version (`"<version>"`), else 412',
          },
          responseHeaders: AGENT_ETAG,
          errors: { 412: 'If-Match names another version of the agent' },
        },
        'admin',
      ),
    },
    async (request, reply) => {
      const { agent_id } = readPath(request, agentPathSchema);
      const body = readBody(request, updateAgentBodySchema);
      const expectedVersion = ifMatchVersion(request.headers['if-match']);
      const changes = {
        ...(body.system_prompt === undefined ? {} : { systemPrompt: body.system_prompt }),
        ...(body.memory === undefined ? {} : { memory: toMemoryConfigInput(body.memory) }),
      };
      const update = () =>
        engram.agents.update(
          tenantOf(request),
          agent_id,
          changes,
          expectedVersion === undefined ? {} : { expectedVersion },
        );
      const agent = expectedVersion === undefined ? await update() : await conditionalWrite(update);
      reply.header('etag', entityTag(agent.version));
      return toAgentBody(agent);
    },
  );

  app.delete(
    '/v1/agents/:agent_id',
    {
      config: extensionRoute(
        {
          summary: 'Delete an agent',
          description: 'Its knowledge documents and procedures are kept.',
          tags,
          params: agentPathSchema,
          status: 204,
        },
        'admin',
      ),
    },
    async (request, reply) => {
      const { agent_id } = readPath(request, agentPathSchema);
      await engram.agents.delete(tenantOf(request), agent_id);
      return reply.status(204).send();
    },
  );
}
