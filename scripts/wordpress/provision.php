<?php
// Installs WordPress headless and seeds the content the site contract tests rely on.
// Run by wordpress.sh with the PHP CLI on every `up`; every step is idempotent (a seeded item that
// a test deleted is created again). Reads its inputs from the environment, prints KEY=value lines
// on stdout for wordpress.sh, and reports progress and errors on stderr.

const SEED_APP_PASSWORD_NAME = 'contract-tests';
const SEED_THEME = 'twentytwentythree';
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

// Debian's wp-config.php reads the config name and the host from $_SERVER, as under a web server.
$_SERVER['WORDPRESS_CONFIG'] = env_required('WORDPRESS_CONFIG');
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

require '/usr/share/wordpress/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
require_once ABSPATH . 'wp-admin/includes/post.php';
require_once ABSPATH . 'wp-admin/includes/image.php';
require_once ABSPATH . 'wp-admin/includes/nav-menu.php';

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

if (get_stylesheet() !== SEED_THEME) {
    $theme = wp_get_theme(SEED_THEME);
    if (!$theme->exists()) {
        fwrite(STDERR, 'provision.php: theme ' . SEED_THEME . ' is not in ' . get_theme_root() . "\n");
        exit(1);
    }
    switch_theme(SEED_THEME);
    note('theme switched to ' . SEED_THEME);
}

// --- application password ----------------------------------------------------------------------
$appPassword = '';
foreach (WP_Application_Passwords::get_user_application_passwords($admin->ID) as $item) {
    if ($previousAppPassword !== '' && wp_check_password($previousAppPassword, $item['password'], $admin->ID)) {
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

// --- seed content --------------------------------------------------------------------------------
function find_seeded(string $postType, string $slug): ?WP_Post
{
    $found = get_posts([
        'name' => $slug,
        'post_type' => $postType,
        'post_status' => ['publish', 'inherit', 'draft', 'pending', 'private', 'future'],
        'numberposts' => 1,
        'suppress_filters' => true,
    ]);
    return $found[0] ?? null;
}

// Creates a published item and edits it once, so that it has revisions and an autosave.
function seed_post(string $postType, string $slug, array $fields, bool $withAutosave): int
{
    $existing = find_seeded($postType, $slug);
    if ($existing) {
        return $existing->ID;
    }
    $id = fail_on_error(wp_insert_post(wp_slash($fields + [
        'post_type' => $postType,
        'post_name' => $slug,
        'post_status' => 'publish',
    ]), true), "creating $postType $slug");
    fail_on_error(wp_update_post(wp_slash([
        'ID' => $id,
        'post_content' => $fields['post_content'] . "\n\n<!-- wp:paragraph -->\n<p>Edited once, so there is a revision.</p>\n<!-- /wp:paragraph -->",
    ]), true), "updating $postType $slug");
    if ($withAutosave) {
        fail_on_error(wp_create_post_autosave(wp_slash([
            'post_ID' => $id,
            'post_type' => $postType,
            'post_title' => $fields['post_title'] . ' (autosaved)',
            'post_content' => $fields['post_content'],
            'post_excerpt' => $fields['post_excerpt'] ?? '',
        ])), "autosaving $postType $slug");
    }
    note("seeded $postType $slug (id $id)");
    return $id;
}

function paragraph(string $text): string
{
    return "<!-- wp:paragraph -->\n<p>$text</p>\n<!-- /wp:paragraph -->";
}

$categoryId = term_exists('Seeded category', 'category')['term_id']
    ?? fail_on_error(wp_insert_term('Seeded category', 'category', ['slug' => 'seeded-category']), 'creating the category')['term_id'];
$tagId = term_exists('seeded', 'post_tag')['term_id']
    ?? fail_on_error(wp_insert_term('seeded', 'post_tag', ['slug' => 'seeded']), 'creating the tag')['term_id'];

$postId = seed_post('post', 'seeded-post', [
    'post_title' => 'Seeded post',
    'post_content' => paragraph('A published post the site contract tests rely on.'),
    'post_excerpt' => 'A published post for the contract tests.',
    'post_author' => $admin->ID,
    'post_category' => [(int) $categoryId],
    'tags_input' => ['seeded'],
], true);

$pageId = seed_post('page', 'seeded-page', [
    'post_title' => 'Seeded page',
    'post_content' => paragraph('A published page the site contract tests rely on.'),
    'post_author' => $admin->ID,
    'menu_order' => 1,
], true);

$blockId = seed_post('wp_block', 'seeded-block', [
    'post_title' => 'Seeded reusable block',
    'post_content' => paragraph('A reusable block the site contract tests rely on.'),
    'post_author' => $admin->ID,
], true);

// A small PNG made here (no image library needed): an 8-bit RGB gradient. 200×150 is just big
// enough for WordPress to make a 150×150 thumbnail, so media_details.sizes is not empty.
function generate_png(int $width, int $height): string
{
    $chunk = static fn (string $type, string $data): string =>
        pack('N', strlen($data)) . $type . $data . pack('N', crc32($type . $data));
    $raw = '';
    for ($y = 0; $y < $height; $y++) {
        $raw .= "\0";
        for ($x = 0; $x < $width; $x++) {
            $raw .= chr((int) (255 * $x / ($width - 1))) . chr((int) (255 * $y / ($height - 1))) . chr(160);
        }
    }
    return "\x89PNG\r\n\x1a\n"
        . $chunk('IHDR', pack('NNCCCCC', $width, $height, 8, 2, 0, 0, 0))
        . $chunk('IDAT', gzcompress($raw, 9))
        . $chunk('IEND', '');
}

$mediaId = find_seeded('attachment', 'seeded-image')?->ID;
if (!$mediaId) {
    $upload = wp_upload_bits('seeded-image.png', null, generate_png(200, 150));
    if (!empty($upload['error'])) {
        fwrite(STDERR, 'provision.php: uploading the seeded image failed: ' . $upload['error'] . "\n");
        exit(1);
    }
    $mediaId = fail_on_error(wp_insert_attachment(wp_slash([
        'post_title' => 'Seeded image',
        'post_name' => 'seeded-image',
        'post_content' => 'A generated PNG the site contract tests rely on.',
        'post_excerpt' => 'Seeded image caption',
        'post_mime_type' => 'image/png',
        'post_status' => 'inherit',
        'post_author' => $admin->ID,
        'guid' => $upload['url'],
    ]), $upload['file'], $postId, true), 'creating the seeded media item');
    wp_update_attachment_metadata($mediaId, wp_generate_attachment_metadata($mediaId, $upload['file']));
    update_post_meta($mediaId, '_wp_attachment_image_alt', 'Seeded image');
    note("seeded media seeded-image (id $mediaId)");
}

$menu = wp_get_nav_menu_object('Seeded menu');
$menuId = $menu ? $menu->term_id : fail_on_error(wp_create_nav_menu('Seeded menu'), 'creating the menu');
$menuItems = wp_get_nav_menu_items($menuId, ['post_status' => 'publish,draft']) ?: [];
$customLinkUrl = home_url('/seeded-page/');
$menuItemId = 0;
$hasCustomLink = false;
foreach ($menuItems as $item) {
    if ($item->type === 'post_type' && (int) $item->object_id === $postId) {
        $menuItemId = $item->ID;
    }
    $hasCustomLink = $hasCustomLink || ($item->type === 'custom' && $item->url === $customLinkUrl);
}
if (!$menuItemId) {
    $menuItemId = fail_on_error(wp_update_nav_menu_item($menuId, 0, [
        'menu-item-title' => 'Seeded post',
        'menu-item-object' => 'post',
        'menu-item-object-id' => $postId,
        'menu-item-type' => 'post_type',
        'menu-item-status' => 'publish',
        'menu-item-position' => 1,
    ]), 'creating the menu item');
    note("seeded menu item $menuItemId (menu $menuId)");
}
if (!$hasCustomLink) {
    $customLinkId = fail_on_error(wp_update_nav_menu_item($menuId, 0, [
        'menu-item-title' => 'Seeded custom link',
        'menu-item-url' => $customLinkUrl,
        'menu-item-type' => 'custom',
        'menu-item-status' => 'publish',
        'menu-item-position' => 2,
    ]), 'creating the custom menu item');
    note("seeded menu item $customLinkId (menu $menuId)");
}

echo "WORDPRESS_APP_PASSWORD=$appPassword\n";
echo "WORDPRESS_SEED_POST_ID=$postId\n";
echo "WORDPRESS_SEED_PAGE_ID=$pageId\n";
echo "WORDPRESS_SEED_MEDIA_ID=$mediaId\n";
echo "WORDPRESS_SEED_BLOCK_ID=$blockId\n";
echo "WORDPRESS_SEED_MENU_ID=$menuId\n";
echo "WORDPRESS_SEED_MENU_ITEM_ID=$menuItemId\n";
