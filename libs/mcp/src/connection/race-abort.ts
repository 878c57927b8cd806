/** Settles as `promise` does, unless `signal` aborts first: then it rejects at once with `reason()`, whatever `promise` is doing. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined, reason: () => unknown): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(reason());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(reason());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
