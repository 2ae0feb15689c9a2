/** The wire shapes the UI reads (snake_case, as the API answers; see /openapi.json). */

export interface Whoami {
  tenant_id: string;
  role: 'admin' | 'agent' | 'inspector';
  subject: string;
  permissions: string[];
  authentication: boolean;
}

export interface SessionKey {
  session_id: string;
  namespace: string | null;
  user_id: string | null;
}

export interface SessionSummary extends SessionKey {
  updated_at: string;
  message_count: number;
}

export interface AmsMessage {
  id: string;
  role: string;
  content: string;
  created_at: string;
  /** Present with `include_summarized=true`: the running summary covers this message. */
  summarized?: boolean;
}

export interface AmsMemory {
  id: string;
  text: string;
  memory_type: string;
  topics: string[] | null;
  entities: string[] | null;
  user_id: string | null;
  namespace: string | null;
  session_id: string | null;
  created_at: string;
  updated_at: string;
  last_accessed: string;
  persisted_at: string | null;
  pinned: boolean;
  event_date: string | null;
  score?: number | null;
  dist?: number;
}

export interface WorkingMemory extends SessionKey {
  messages: AmsMessage[];
  memories: AmsMemory[];
  data: Record<string, unknown> | null;
  context: string | null;
  ttl_seconds: number | null;
  tokens: number;
  created_at: string;
  updated_at: string;
}

export interface TraceItem {
  id: string;
  kind: 'system' | 'memory' | 'message' | 'summary' | 'current';
  included: boolean;
  reason: string;
  tokens: number;
  score?: number;
  /** The parts of `score` by name (similarity, decayed_salience, text_score...). */
  components?: Record<string, number>;
  source?: string;
}

export interface TraceSection {
  name: string;
  tokens: number;
  cap: number | null;
  items: TraceItem[];
}

export interface Trace {
  model: string;
  encoding: string;
  budget: {
    max_working_memory_tokens: number;
    reserved_output_tokens: number;
    available: number;
    used: number;
  };
  sections: TraceSection[];
  history: { strategy: string; candidates: number; kept: number; older_not_read: number; recounted: number };
  sources: {
    name: string;
    section: string;
    status: 'ok' | 'timeout' | 'error';
    duration_ms: number;
    item_count: number;
    error?: string;
  }[];
  degraded: boolean;
  duration_ms: number | null;
}

export interface TraceRecord extends SessionKey {
  id: string;
  agent_id: string;
  created_at: string;
  trace: Trace;
}

export interface ContextAnswer {
  messages: { role: string; content: string; section: string; id?: string }[];
  trace: Trace;
  agent: { id: string; version: number };
}

export interface WorkingSetItem {
  id: string;
  score: number;
  components: {
    similarity: number;
    salience: number;
    decay: number;
    decayed_salience: number;
    confidence: number;
    weights: { similarity: number; salience: number; confidence: number };
  };
  pinned: boolean;
  pack: string;
  memory: { text: string; memory_type: string; topics: string[]; created_at: string; last_accessed: string };
}

export interface WorkingSet extends SessionKey {
  version: number;
  pinned: string[];
  removed: string[];
  items: WorkingSetItem[];
  excluded: { id: string; reason: string; score?: number }[];
}

export interface Procedure {
  id: string;
  agent_id: string;
  name: string;
  triggers: string[];
  examples: string[];
  steps: string[];
  status: 'pending' | 'approved' | 'rejected';
  version: number;
  created_at: string;
  updated_at: string;
}

export interface KnowledgeDocument {
  document_id: string;
  agent_id: string;
  name: string;
  chunks: number;
  created_at: string;
}

export interface KnowledgeChunk {
  id: string;
  index: number | null;
  headings: string[];
  text: string;
}

export interface Job {
  id: string;
  type: string;
  status: 'pending' | 'running' | 'succeeded' | 'failed';
  attempts: number;
  max_attempts: number;
  payload: Record<string, string | number | boolean | null>;
  error: { message: string; code: string | null } | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  available_at: string | null;
}

export interface MemoryVersion {
  version: number;
  id?: string;
  text: string;
  valid_from: string;
  valid_to: string | null;
  written_by?: string | null;
  memory_type?: string;
  agent_id?: string | null;
  /** The knowledge document of a chunk (null for anything else). */
  document_id?: string | null;
}
