/** An AMS "HTTPException": answered as `{"detail": "<message>"}` with its status (e.g. 400 empty content). */
export class AmsHttpError extends Error {
  readonly status: number;

  constructor(status: number, detail: string) {
    super(detail);
    this.name = 'AmsHttpError';
    this.status = status;
  }
}
