/** The loopback sshd that plays the guest lives with the simulator (shared with the server's tests). */
export { startTestSshd as startSshd, type TestSshd } from '@vmhub/pve-simulator';
