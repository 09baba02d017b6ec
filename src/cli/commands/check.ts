import { PanicPairError } from '../../errors.js';

export async function checkCommand(_options: { config?: string; json?: boolean }): Promise<void> {
  throw new PanicPairError('failure', 'check is not built yet');
}
