import { startMock } from '@platform-api/mock';
const mock = await startMock(process.argv[2], { port: Number(process.argv[3]) });
console.log('READY', mock.url);
process.on('SIGTERM', async () => { await mock.close(); process.exit(0); });
