/**
 * The JSON objects the stand-in sends, in GitHub's shapes: `simple-user` (an installation's
 * account, a repository's owner), `installation`, `repository`. Every field the schemas require
 * is present; URLs point at the stand-in (`apiUrl` for API links, `baseUrl` for web/git links),
 * so they pass the `uri` format and a client following one stays on the stand-in.
 * Times are fixed (the stand-in's start) — nothing here is meant to be asserted on.
 */
import type { PermissionLevel } from './types.ts';

export interface Urls {
  apiUrl: string;
  baseUrl: string;
}

export interface AccountInfo {
  login: string;
  id: number;
  type: 'Organization' | 'User';
}

function nodeId(kind: string, id: number): string {
  return Buffer.from(`0${kind.length}:${kind}${id}`).toString('base64');
}

export function simpleUser(urls: Urls, account: AccountInfo): Record<string, unknown> {
  const api = `${urls.apiUrl}/users/${account.login}`;
  return {
    login: account.login,
    id: account.id,
    node_id: nodeId(account.type, account.id),
    avatar_url: `${urls.baseUrl}/avatars/${account.login}`,
    gravatar_id: '',
    url: api,
    html_url: `${urls.baseUrl}/${account.login}`,
    followers_url: `${api}/followers`,
    following_url: `${api}/following{/other_user}`,
    gists_url: `${api}/gists{/gist_id}`,
    starred_url: `${api}/starred{/owner}{/repo}`,
    subscriptions_url: `${api}/subscriptions`,
    organizations_url: `${api}/orgs`,
    repos_url: `${api}/repos`,
    events_url: `${api}/events{/privacy}`,
    received_events_url: `${api}/received_events`,
    type: account.type,
    site_admin: false,
    user_view_type: 'public',
  };
}

export interface InstallationInfo {
  id: number;
  account: AccountInfo;
  appId: number;
  appSlug: string;
  clientId?: string;
  permissions: Record<string, PermissionLevel>;
  createdAt: string;
}

export function installationJson(urls: Urls, inst: InstallationInfo): Record<string, unknown> {
  const html = inst.account.type === 'Organization'
    ? `${urls.baseUrl}/organizations/${inst.account.login}/settings/installations/${inst.id}`
    : `${urls.baseUrl}/settings/installations/${inst.id}`;
  return {
    id: inst.id,
    account: simpleUser(urls, inst.account),
    repository_selection: 'selected',
    access_tokens_url: `${urls.apiUrl}/app/installations/${inst.id}/access_tokens`,
    repositories_url: `${urls.apiUrl}/installation/repositories`,
    html_url: html,
    app_id: inst.appId,
    ...(inst.clientId ? { client_id: inst.clientId } : {}),
    app_slug: inst.appSlug,
    target_id: inst.account.id,
    target_type: inst.account.type,
    permissions: { ...inst.permissions },
    events: [],
    created_at: inst.createdAt,
    updated_at: inst.createdAt,
    single_file_name: null,
    has_multiple_single_files: false,
    single_file_paths: [],
    suspended_by: null,
    suspended_at: null,
  };
}

export interface RepositoryInfo {
  fullName: string;
  id: number;
  owner: AccountInfo;
  createdAt: string;
}

export function repositoryJson(urls: Urls, repo: RepositoryInfo): Record<string, unknown> {
  const name = repo.fullName.split('/')[1]!;
  const api = `${urls.apiUrl}/repos/${repo.fullName}`;
  const web = `${urls.baseUrl}/${repo.fullName}`;
  const host = new URL(urls.baseUrl).host;
  return {
    id: repo.id,
    node_id: nodeId('Repository', repo.id),
    name,
    full_name: repo.fullName,
    license: null,
    forks: 0,
    owner: simpleUser(urls, repo.owner),
    private: true,
    html_url: web,
    description: null,
    fork: false,
    url: api,
    archive_url: `${api}/{archive_format}{/ref}`,
    assignees_url: `${api}/assignees{/user}`,
    blobs_url: `${api}/git/blobs{/sha}`,
    branches_url: `${api}/branches{/branch}`,
    collaborators_url: `${api}/collaborators{/collaborator}`,
    comments_url: `${api}/comments{/number}`,
    commits_url: `${api}/commits{/sha}`,
    compare_url: `${api}/compare/{base}...{head}`,
    contents_url: `${api}/contents/{+path}`,
    contributors_url: `${api}/contributors`,
    deployments_url: `${api}/deployments`,
    downloads_url: `${api}/downloads`,
    events_url: `${api}/events`,
    forks_url: `${api}/forks`,
    git_commits_url: `${api}/git/commits{/sha}`,
    git_refs_url: `${api}/git/refs{/sha}`,
    git_tags_url: `${api}/git/tags{/sha}`,
    git_url: `git://${host}/${repo.fullName}.git`,
    issue_comment_url: `${api}/issues/comments{/number}`,
    issue_events_url: `${api}/issues/events{/number}`,
    issues_url: `${api}/issues{/number}`,
    keys_url: `${api}/keys{/key_id}`,
    labels_url: `${api}/labels{/name}`,
    languages_url: `${api}/languages`,
    merges_url: `${api}/merges`,
    milestones_url: `${api}/milestones{/number}`,
    notifications_url: `${api}/notifications{?since,all,participating}`,
    pulls_url: `${api}/pulls{/number}`,
    releases_url: `${api}/releases{/id}`,
    ssh_url: `git@${new URL(urls.baseUrl).hostname}:${repo.fullName}.git`,
    stargazers_url: `${api}/stargazers`,
    statuses_url: `${api}/statuses/{sha}`,
    subscribers_url: `${api}/subscribers`,
    subscription_url: `${api}/subscription`,
    tags_url: `${api}/tags`,
    teams_url: `${api}/teams`,
    trees_url: `${api}/git/trees{/sha}`,
    clone_url: `${web}.git`,
    mirror_url: null,
    hooks_url: `${api}/hooks`,
    svn_url: web,
    homepage: null,
    language: null,
    forks_count: 0,
    stargazers_count: 0,
    watchers_count: 0,
    size: 0,
    default_branch: 'main',
    open_issues_count: 0,
    is_template: false,
    topics: [],
    has_issues: true,
    has_projects: true,
    has_wiki: false,
    has_pages: false,
    has_downloads: true,
    has_discussions: false,
    archived: false,
    disabled: false,
    visibility: 'private',
    pushed_at: repo.createdAt,
    created_at: repo.createdAt,
    updated_at: repo.createdAt,
    allow_forking: false,
    web_commit_signoff_required: false,
    open_issues: 0,
    watchers: 0,
  };
}
