/** A TCP port free on 127.0.0.1 at the moment of asking. */
export function freePort(): Promise<number>;
/** Whether something accepts connections on 127.0.0.1:port now. */
export function accepts(port: number): Promise<boolean>;
