/** One chat message sent to a model. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** A chat completion request, provider-neutral. */
export interface ChatRequest {
  messages: ChatMessage[];
  /** Default: the provider's configured temperature (0 unless set). */
  temperature?: number;
  maxTokens?: number;
  stop?: string[];
  /** Ask the server for a JSON object (`response_format: {type: "json_object"}` when the provider sends it). */
  json?: boolean;
  /** Aborting rejects the call (or ends the stream) with the signal's reason. */
  signal?: AbortSignal;
}

export interface ChatUsage {
  promptTokens: number;
  completionTokens: number;
}

/** A whole answer. */
export interface ChatCompletion {
  content: string;
  /** `stop`, `length`, … as the server reports it; null when it reports none. */
  finishReason: string | null;
  usage: ChatUsage | null;
  /** The model the server says answered. */
  model: string;
}

/** One piece of a streamed answer. */
export interface ChatChunk {
  /** Text added by this chunk (may be empty, e.g. on the final chunk). */
  delta: string;
  finishReason: string | null;
  /** Present on the chunk that carries it (servers send it last, if at all). */
  usage?: ChatUsage;
}

/**
 * A chat model. Calls make exactly one HTTP attempt: retrying is the caller's decision (the job
 * runner retries with backoff, durably). Failures reject with LlmError, whose `retryable` and
 * `retryAfterMs` say whether and when trying again makes sense.
 */
export interface LlmProvider {
  /** Identity for logs and results, e.g. `openai:gpt-4o-mini`. */
  readonly model: string;
  complete(request: ChatRequest): Promise<ChatCompletion>;
  /** The answer as it is generated; breaking out of the loop cancels the request. */
  stream(request: ChatRequest): AsyncIterable<ChatChunk>;
}
