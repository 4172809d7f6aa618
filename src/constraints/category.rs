//! Guessing a constraint's category from its description, for `wf constraints add`
//! without `--category`.
//!
//! There are six categories (docs/constraints.md): requirement, interface, data,
//! error, security, performance. The rules below are checked in order and the first match wins; the
//! order puts the categories whose words are most specific first, so "token leaks in
//! the API response" is security, not interface. Matching is case-insensitive and
//! covers the English and Chinese words the plugin's models write. Anything else is a
//! plain `requirement`.

use std::sync::OnceLock;

use regex::Regex;

/// (category, pattern), checked in this order.
const RULES: [(&str, &str); 5] = [
    (
        "security",
        r"auth|token|password|passwd|secret|credential|encrypt|decrypt|加密|解密|权限|鉴权|认证|登录态|xss|csrf|injection|注入|sanitiz|敏感|脱敏|permission|privilege|\bacl\b|rbac|jwt|oauth|https\b|tls\b|ssl\b",
    ),
    (
        "performance",
        r"latency|\d\s*ms\b|\bms\b|性能|throughput|qps|\brps\b|cache|缓存|p9[059]\b|memory|内存|耗时|延迟|并发|concurren|performance|fast|slow|毫秒|秒内|bundle size|lazy.?load|懒加载",
    ),
    (
        "interface",
        r"\bapis?\b|\bapi_|endpoint|接口|端点|response|响应|request|请求|\bschema\b|契约|contract|\brest\b|graphql|\bgrpc\b|\bhttp\b|status code|状态码|header|payload|openapi|swagger|\bprops?\b",
    ),
    (
        "data",
        r"database|\bdb\b|schema migration|migration|迁移|字段|数据|\bmodel\b|模型|validation|validate|校验|验证|\bzod\b|\byup\b|\bsql\b|table|表结构|column|index|索引|persist|持久化|存储|storage|\bjson\b|serializ|序列化|类型定义",
    ),
    (
        "error",
        r"error|exception|retry|retries|fallback|错误|异常|超时|timeout|重试|降级|兜底|失败|fail|crash|崩溃|recover|恢复|\bpanic\b|rollback|回滚",
    ),
];

fn compiled() -> &'static [(&'static str, Regex)] {
    static RULESET: OnceLock<Vec<(&'static str, Regex)>> = OnceLock::new();
    RULESET.get_or_init(|| {
        RULES
            .iter()
            // The patterns are constants covered by the tests below; a bad one would
            // be a build defect, and skipping it beats a panic in a user's shell.
            .filter_map(|(cat, re)| Regex::new(&format!("(?i){re}")).ok().map(|re| (*cat, re)))
            .collect()
    })
}

pub fn detect(description: &str) -> &'static str {
    compiled()
        .iter()
        .find(|(_, re)| re.is_match(description))
        .map_or("requirement", |(cat, _)| cat)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_compiles() {
        assert_eq!(compiled().len(), RULES.len());
    }

    #[test]
    fn the_documented_examples() {
        assert_eq!(detect("API 响应必须包含 requestId"), "interface");
        assert_eq!(detect("建议使用 zod 进行输入验证"), "data");
    }

    #[test]
    fn english_examples() {
        assert_eq!(detect("Passwords are hashed with argon2"), "security");
        assert_eq!(detect("Escape user HTML to prevent XSS"), "security");
        assert_eq!(detect("p95 latency under 200ms"), "performance");
        assert_eq!(detect("Cache the user list"), "performance");
        assert_eq!(detect("Every endpoint returns {code, data}"), "interface");
        assert_eq!(detect("The REST API keeps v1 paths"), "interface");
        assert_eq!(detect("Add a DB index on email"), "data");
        assert_eq!(detect("Validate input with Zod"), "data");
        assert_eq!(
            detect("Retry twice, then fall back to the cache-less path"),
            "performance"
        );
        assert_eq!(detect("Retry twice with exponential backoff"), "error");
        assert_eq!(detect("Show an error toast when saving fails"), "error");
        assert_eq!(detect("Users can export reports as PDF"), "requirement");
    }

    #[test]
    fn chinese_examples() {
        assert_eq!(detect("密码必须加密存储"), "security");
        assert_eq!(detect("防止 SQL 注入"), "security");
        assert_eq!(detect("列表接口需要缓存"), "performance");
        assert_eq!(detect("首屏性能不能下降"), "performance");
        assert_eq!(detect("接口返回统一格式"), "interface");
        assert_eq!(detect("新增字段需兼容旧数据"), "data");
        assert_eq!(detect("超时后自动重试三次"), "error");
        assert_eq!(detect("网络异常时展示兜底页"), "error");
        assert_eq!(detect("支持导出 PDF 报表"), "requirement");
    }

    #[test]
    fn order_decides_between_categories() {
        // Security words beat interface words: the risk is what matters.
        assert_eq!(detect("API tokens never appear in responses"), "security");
        // Case does not matter.
        assert_eq!(detect("AUTH REQUIRED"), "security");
    }

    #[test]
    fn words_inside_other_words_do_not_match() {
        // `ms` only as a unit, `db` only as a word.
        assert_eq!(detect("Items are listed alphabetically"), "requirement");
        assert_eq!(detect("Add a feedback form"), "requirement");
    }
}
