import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { NotFoundError } from '../../core/errors.js';
import type { Procedure } from '../../core/schemas/procedure.js';
import type { Engram } from '../../engram.js';
import { grants, tenantOf } from '../auth/principal.js';
import { readBody, readPath, readQuery } from '../request-parts.js';
import { agentPathSchema } from './agent-schemas.js';
import { extensionRoute } from './extension-route.js';
import {
  createProcedureBodySchema,
  listProceduresQuerySchema,
  procedureBodySchema,
  procedurePathSchema,
  toProcedureBody,
  updateProcedureBodySchema,
} from './procedure-schemas.js';

const tags = ['procedures'];

/**
 * Procedures of an agent: proposed (write), listed, read, edited (a new version, same id), deleted, and
 * approved or rejected by an admin. A procedure of another agent or tenant is 404.
 */
export function registerProcedureRoutes(app: FastifyInstance, engram: Engram): void {
  /** The procedure named by the path, checked to belong to the path's agent. */
  async function procedureOf(request: FastifyRequest): Promise<{ tenantId: string; procedure: Procedure }> {
    const { agent_id, procedure_id } = readPath(request, procedurePathSchema);
    const tenantId = tenantOf(request);
    await engram.agents.resolve(tenantId, agent_id);
    const procedure = await engram.procedures.get(tenantId, procedure_id);
    if (procedure.agentId !== agent_id) throw new NotFoundError('Procedure', procedure_id);
    return { tenantId, procedure };
  }
  const one = { params: procedurePathSchema, response: procedureBodySchema, tags };

  app.post(
    '/v1/agents/:agent_id/procedures',
    {
      config: extensionRoute({
        summary: 'Propose a procedure (pending until approved)',
        description:
          '201 with the new procedure; 200 with `deduplicated: true` and the existing procedure when ' +
          'this agent already has one with the same name, triggers, examples and steps (nothing is stored).',
        tags,
        params: agentPathSchema,
        body: createProcedureBodySchema,
        response: procedureBodySchema.extend({ deduplicated: z.boolean() }),
        status: 201,
      }),
    },
    async (request, reply) => {
      const { agent_id } = readPath(request, agentPathSchema);
      const body = readBody(request, createProcedureBodySchema);
      const tenantId = tenantOf(request);
      await engram.agents.resolve(tenantId, agent_id);
      const procedure = await engram.procedures.create(tenantId, { ...body, agentId: agent_id });
      const answer = { ...toProcedureBody(procedure), deduplicated: procedure.deduplicated };
      return reply.status(procedure.deduplicated ? 200 : 201).send(answer);
    },
  );

  app.get(
    '/v1/agents/:agent_id/procedures',
    {
      config: extensionRoute({
        summary: 'List an agent’s procedures',
        tags,
        params: agentPathSchema,
        query: listProceduresQuerySchema,
        response: z.object({ procedures: z.array(procedureBodySchema) }),
      }),
    },
    async (request) => {
      const { agent_id } = readPath(request, agentPathSchema);
      const { status } = readQuery(request, listProceduresQuerySchema);
      const tenantId = tenantOf(request);
      await engram.agents.resolve(tenantId, agent_id);
      const procedures = await engram.procedures.list(tenantId, agent_id, status);
      return { procedures: procedures.map(toProcedureBody) };
    },
  );

  app.get(
    '/v1/agents/:agent_id/procedures/:procedure_id',
    { config: extensionRoute({ summary: 'Read a procedure', ...one }) },
    async (request) => toProcedureBody((await procedureOf(request)).procedure),
  );

  app.patch(
    '/v1/agents/:agent_id/procedures/:procedure_id',
    {
      config: extensionRoute({
        summary: 'Edit a procedure',
        description: 'Writes a new version under the same id (version + 1); no change, no new version.',
        body: updateProcedureBodySchema,
        ...one,
      }),
    },
    async (request) => {
      const body = readBody(request, updateProcedureBodySchema);
      const { tenantId, procedure } = await procedureOf(request);
      // Approval is of the steps an admin read: an edit by a caller who may not approve needs a new one.
      const keepDecision = grants(request.principal.role, 'admin');
      return toProcedureBody(await engram.procedures.update(tenantId, procedure.id, body, { keepDecision }));
    },
  );

  app.delete(
    '/v1/agents/:agent_id/procedures/:procedure_id',
    {
      config: extensionRoute({
        summary: 'Delete a procedure',
        params: procedurePathSchema,
        tags,
        status: 204,
      }),
    },
    async (request, reply) => {
      const { tenantId, procedure } = await procedureOf(request);
      await engram.procedures.delete(tenantId, procedure.id);
      return reply.status(204).send();
    },
  );

  for (const decision of ['approve', 'reject'] as const) {
    app.post(
      `/v1/agents/:agent_id/procedures/:procedure_id/${decision}`,
      {
        config: extensionRoute(
          {
            summary: decision === 'approve' ? 'Approve a procedure' : 'Reject a procedure',
            description:
              'A new version (same id) with the status, written by `user`; deciding again what is already ' +
              'decided changes nothing. Only approved procedures enter contexts.',
            ...one,
          },
          'admin',
        ),
      },
      async (request) => {
        const { tenantId, procedure } = await procedureOf(request);
        return toProcedureBody(await engram.procedures[decision](tenantId, procedure.id));
      },
    );
  }
}
