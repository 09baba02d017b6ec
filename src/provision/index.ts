export { batchFileName, parseBatchCsv, planBatch, type BatchDefaults, type BatchRow } from './batch.js';
export { BOOT_PARTITION, SCRUBBED_USER_DATA, SEED_DIRS } from './boot-partition.js';
export { ProvisionInputError } from './errors.js';
export { apiUrlOf, customerIdOf, debOnBootOf, DEFAULT_WEB_LISTEN, hubIdOf, mqttUrlOf, tokenFrom, webCodeFrom, webListenOf, type ProvisionedHub } from './hub.js';
export { HUB_ID_FILE, userDataFor } from './user-data.js';
