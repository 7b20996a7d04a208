/** Which endpoints the simulator models. Every other endpoint in the schema answers 501 and is counted. */
import type { HandlerTable } from './handler.ts';
import { agentExec, agentExecStatus, agentFileRead, agentFileWrite, agentInterfaces, agentPing, agentSimple } from './handlers/qemu-agent.ts';
import { cloneVm } from './handlers/qemu-clone.ts';
import { getConfig, getPending, postConfig, putConfig } from './handlers/qemu-config.ts';
import { destroyVm, rebootVm, shutdownVm, startVm, stopVm, templateVm } from './handlers/qemu-power.ts';
import { listVms, statusCurrent, statusIndex, vmIndex } from './handlers/qemu-read.ts';
import { createSnapshot, deleteSnapshot, listSnapshots, rollbackSnapshot } from './handlers/qemu-snapshot.ts';
import { listTasks, stopTask, taskLog, taskStatus } from './handlers/tasks.ts';
import { agentIndex, cloudinitDump, cloudinitRegenerate, cloudinitView, poolById, resizeDisk, resumeVm, storageList, storageStatus, suspendVm, taskIndex } from './handlers/extras.ts';
import { clusterResources, clusterStatus, listNodes, listPools, nextId, nodeIndex, nodeStatus, nodeStorage, permissions, version } from './handlers/cluster-read.ts';

const Q = '/nodes/{node}/qemu/{vmid}';

export const ROUTES: HandlerTable = {
  'GET /version': version,
  'GET /cluster/nextid': nextId,
  'GET /cluster/resources': clusterResources,
  'GET /cluster/status': clusterStatus,
  'GET /nodes': listNodes,
  'GET /nodes/{node}': nodeIndex,
  'GET /nodes/{node}/status': nodeStatus,
  'GET /nodes/{node}/storage': nodeStorage,
  'GET /pools': listPools,
  'GET /access/permissions': permissions,
  'GET /nodes/{node}/tasks': listTasks,
  'GET /nodes/{node}/tasks/{upid}': taskIndex,
  'GET /nodes/{node}/tasks/{upid}/status': taskStatus,
  'GET /storage': storageList,
  'GET /nodes/{node}/storage/{storage}/status': storageStatus,
  'GET /pools/{poolid}': poolById,
  'GET /nodes/{node}/tasks/{upid}/log': taskLog,
  'DELETE /nodes/{node}/tasks/{upid}': stopTask,
  'GET /nodes/{node}/qemu': listVms,
  [`GET ${Q}`]: vmIndex,
  [`DELETE ${Q}`]: destroyVm,
  [`POST ${Q}/clone`]: cloneVm,
  [`POST ${Q}/template`]: templateVm,
  [`GET ${Q}/config`]: getConfig,
  [`PUT ${Q}/config`]: putConfig,
  [`POST ${Q}/config`]: postConfig,
  [`GET ${Q}/pending`]: getPending,
  [`GET ${Q}/status`]: statusIndex,
  [`GET ${Q}/status/current`]: statusCurrent,
  [`POST ${Q}/status/start`]: startVm,
  [`POST ${Q}/status/stop`]: stopVm,
  [`POST ${Q}/status/shutdown`]: shutdownVm,
  [`POST ${Q}/status/reboot`]: rebootVm('qmreboot'),
  [`POST ${Q}/status/reset`]: rebootVm('qmreset'),
  [`POST ${Q}/status/suspend`]: suspendVm,
  [`POST ${Q}/status/resume`]: resumeVm,
  [`GET ${Q}/snapshot`]: listSnapshots,
  [`POST ${Q}/snapshot`]: createSnapshot,
  [`POST ${Q}/snapshot/{snapname}/rollback`]: rollbackSnapshot,
  [`DELETE ${Q}/snapshot/{snapname}`]: deleteSnapshot,
  [`PUT ${Q}/resize`]: resizeDisk,
  [`GET ${Q}/cloudinit`]: cloudinitView,
  [`PUT ${Q}/cloudinit`]: cloudinitRegenerate,
  [`GET ${Q}/cloudinit/dump`]: cloudinitDump,
  [`GET ${Q}/agent`]: agentIndex,
  [`POST ${Q}/agent/ping`]: agentPing,
  [`GET ${Q}/agent/network-get-interfaces`]: agentInterfaces,
  [`GET ${Q}/agent/info`]: agentSimple(() => ({ version: '9.2.0', supported_commands: ['guest-ping', 'guest-exec', 'guest-exec-status', 'guest-file-open', 'guest-file-read', 'guest-file-write', 'guest-file-close', 'guest-network-get-interfaces'].map((name) => ({ name, enabled: true, 'success-response': true })) })),
  [`GET ${Q}/agent/get-osinfo`]: agentSimple(() => ({ id: 'debian', name: 'Debian GNU/Linux', 'pretty-name': 'Debian GNU/Linux 13 (trixie)', 'version-id': '13', 'kernel-release': '6.12.0-1-amd64', machine: 'x86_64' })),
  [`GET ${Q}/agent/get-host-name`]: agentSimple((vm) => ({ 'host-name': String(vm.config.name ?? `vm${vm.vmid}`) })),
  [`POST ${Q}/agent/exec`]: agentExec,
  [`GET ${Q}/agent/exec-status`]: agentExecStatus,
  [`GET ${Q}/agent/file-read`]: agentFileRead,
  [`POST ${Q}/agent/file-write`]: agentFileWrite,
};
