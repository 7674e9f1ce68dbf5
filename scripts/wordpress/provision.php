<?php
// Installs one WordPress headless: admin user, permalinks, time zone, block theme and an application
// password. No content: the site contract tests create what they need through the REST API.
// Run by wordpress.sh with the PHP CLI on every `up` of each site; every step is idempotent. Reads its
// inputs from the environment, prints KEY=value lines on stdout for wordpress.sh, and reports progress
// and errors on stderr. Works with every WordPress the script serves (6.1 and 7.1).

const SEED_APP_PASSWORD_NAME = 'contract-tests';
const SEED_PERMALINKS = '/%postname%/';

function env_required(string $name): string
{
    $value = getenv($name);
    if ($value === false || $value === '') {
        fwrite(STDERR, "provision.php: environment variable $name is required\n");
        exit(2);
    }
    return $value;
}

$siteUrl = env_required('WORDPRESS_URL');
$adminUser = env_required('WORDPRESS_USER');
$adminPassword = env_required('WORDPRESS_ADMIN_PASSWORD');
$adminEmail = env_required('WORDPRESS_ADMIN_EMAIL');
$previousAppPassword = (string) getenv('WORDPRESS_APP_PASSWORD');
// ABSPATH of the site (Debian's /usr/share/wordpress, or the unpacked newer package) and its block theme.
$wordpressRoot = rtrim(env_required('WORDPRESS_ROOT'), '/');
$provisionTheme = env_required('WORDPRESS_THEME');

// The site's ABSPATH (with its own wp-config.php), as the router defines it for the web server.
define('ABSPATH', rtrim(env_required('WORDPRESS_ABSPATH'), '/') . '/');
// WordPress reads the host from $_SERVER, as under a web server.
$_SERVER['HTTP_HOST'] = parse_url($siteUrl, PHP_URL_HOST) . ':' . parse_url($siteUrl, PHP_URL_PORT);
$_SERVER['SERVER_NAME'] = parse_url($siteUrl, PHP_URL_HOST);
$_SERVER['REQUEST_URI'] = '/';
$_SERVER['REQUEST_METHOD'] = 'GET';

// Installing mode: no redirect to install.php, no plugins loaded.
define('WP_INSTALLING', true);

// No mail server: the "new site" e-mail is a no-op (pluggable in wp-admin/includes/upgrade.php).
function wp_new_blog_notification($blog_title, $blog_url, $user_id, $password)
{
}

// No outgoing HTTP while provisioning: wp_install() probes pretty permalinks with loopback
// requests, which would only wait for a server that may not be listening yet.
$GLOBALS['wp_filter']['pre_http_request'][10][] = [
    'function' => static fn () => new WP_Error('http_disabled', 'HTTP is disabled while provisioning'),
    'accepted_args' => 1,
];

require $wordpressRoot . '/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';

function fail_on_error($result, string $what)
{
    if (is_wp_error($result)) {
        fwrite(STDERR, "provision.php: $what failed: " . $result->get_error_message() . "\n");
        exit(1);
    }
    if ($result === false || $result === 0) {
        fwrite(STDERR, "provision.php: $what failed\n");
        exit(1);
    }
    return $result;
}

function note(string $message): void
{
    fwrite(STDERR, "  wordpress: $message\n");
}

// --- install ---------------------------------------------------------------------------------
if (!is_blog_installed()) {
    $installed = wp_install('Platform API content site', $adminUser, $adminEmail, true, '', wp_slash($adminPassword));
    fail_on_error($installed['user_id'] ?? false, 'wp_install');
    note('installed WordPress ' . get_bloginfo('version'));
}

$admin = get_user_by('login', $adminUser);
if (!$admin) {
    $userId = fail_on_error(wp_insert_user([
        'user_login' => $adminUser,
        'user_pass' => $adminPassword,
        'user_email' => $adminEmail,
        'role' => 'administrator',
    ]), 'creating the admin user');
    $admin = get_user_by('id', $userId);
    note("created the admin user $adminUser");
}
wp_set_current_user($admin->ID);

if (get_option('permalink_structure') !== SEED_PERMALINKS) {
    global $wp_rewrite;
    $wp_rewrite->set_permalink_structure(SEED_PERMALINKS);
    $wp_rewrite->flush_rules(false);
    note('permalinks set to ' . SEED_PERMALINKS);
}
if (get_option('timezone_string') !== 'UTC') {
    update_option('timezone_string', 'UTC');
}

if (get_stylesheet() !== $provisionTheme) {
    if (!wp_get_theme($provisionTheme)->exists()) {
        fwrite(STDERR, "provision.php: theme $provisionTheme is not in " . get_theme_root() . "\n");
        exit(1);
    }
    switch_theme($provisionTheme);
    note("theme switched to $provisionTheme");
}

// --- application password ----------------------------------------------------------------------
$appPassword = '';
// WordPress 6.8+ stores application passwords as wp_fast_hash() (`$generic$…`), which
// wp_check_password() does not verify; its own check_password() knows both forms.
$verifies = method_exists('WP_Application_Passwords', 'check_password')
    ? static fn (string $password, string $hash): bool => WP_Application_Passwords::check_password($password, $hash)
    : static fn (string $password, string $hash): bool => wp_check_password($password, $hash, $admin->ID);
foreach (WP_Application_Passwords::get_user_application_passwords($admin->ID) as $item) {
    if ($previousAppPassword !== '' && $verifies($previousAppPassword, $item['password'])) {
        $appPassword = $previousAppPassword;
        break;
    }
}
if ($appPassword === '') {
    // Only one password of ours at a time: forget those whose clear text is lost.
    foreach (WP_Application_Passwords::get_user_application_passwords($admin->ID) as $item) {
        if ($item['name'] === SEED_APP_PASSWORD_NAME) {
            WP_Application_Passwords::delete_application_password($admin->ID, $item['uuid']);
        }
    }
    [$appPassword] = fail_on_error(
        WP_Application_Passwords::create_new_application_password($admin->ID, ['name' => SEED_APP_PASSWORD_NAME]),
        'creating the application password'
    );
    note('created a new application password');
}

echo "WORDPRESS_APP_PASSWORD=$appPassword\n";
echo 'WORDPRESS_VERSION=' . get_bloginfo('version') . "\n";
