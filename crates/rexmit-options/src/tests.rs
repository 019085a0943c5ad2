use super::*;

choices! {
    /// A choice for the tests.
    pub enum Mode {
        /// The first.
        Plain = "plain",
        Fancy = "fancy",
    }
}

config_table! {
    #[derive(Clone, Debug, PartialEq)]
    pub struct Inner;
    public {
        /// A lower bound.
        opt low: u32 = 1, unit = count, check = *low >= 1 => ">= 1";
        opt high: u32 = 10, unit = count;
    }
    internal {}
}

impl Relations for Inner {
    fn check_relations(&self) -> Result<(), ConfigError> {
        require(self.high >= self.low, "high", ">= low", &self.high)
    }
}

config_table! {
    #[derive(Clone, Debug, PartialEq)]
    pub struct Outer;
    public {
        /// Segment size.
        /// Second line.
        opt size: u16 = 1460, linux = 1448, unit = bytes, check = (88..=9000).contains(size) => "88..=9000";
        opt mode: Mode = Mode::Plain, unit = choice;
        opt wait: Duration = Duration::from_millis(200), unit = time,
            check = *wait <= Duration::from_millis(500) => "0..=500ms";
        table inner: Inner = Inner::default(), linux = Inner { low: 2, high: 20 }, unit = table;
    }
    internal {
        opt secret: u64 = 7, unit = count;
    }
}

impl Relations for Outer {}

#[test]
fn defaults_and_linux_values_come_from_the_table() {
    let d = Outer::default();
    assert_eq!(
        (d.size, d.mode, d.inner.low, d.secret),
        (1460, Mode::Plain, 1, 7)
    );
    let l = Outer::linux_values();
    assert_eq!(
        (l.size, l.mode, l.inner.high, l.secret),
        (1448, Mode::Plain, 20, 7)
    );
}

#[test]
fn checks_name_the_key_the_range_and_the_value() {
    let bad = Outer {
        size: 10,
        ..Outer::default()
    };
    assert_eq!(
        validate(&bad).unwrap_err(),
        ConfigError {
            field: "size".into(),
            allowed: "88..=9000".into(),
            got: "10".into()
        }
    );
    let bad = Outer {
        wait: Duration::from_secs(1),
        ..Outer::default()
    };
    assert_eq!(
        validate(&bad).unwrap_err().to_string(),
        "wait: 1s is outside the allowed range 0..=500ms"
    );
    // A nested table's own ranges and its relations carry its key.
    let bad = Outer {
        inner: Inner { low: 0, high: 1 },
        ..Outer::default()
    };
    assert_eq!(validate(&bad).unwrap_err().field, "inner.low");
    let bad = Outer {
        inner: Inner { low: 5, high: 1 },
        ..Outer::default()
    };
    assert_eq!(
        validate(&bad).unwrap_err().to_string(),
        "inner.high: 1 is outside the allowed range >= low"
    );
    assert_eq!(validate(&Outer::default()), Ok(()));
}

#[test]
fn visit_lists_every_option_with_doc_unit_and_value() {
    let mut rows = Vec::new();
    Outer::linux_values().visit("", &mut |r| rows.push(r));
    let keys: Vec<&str> = rows.iter().map(|r| r.key.as_str()).collect();
    assert_eq!(
        keys,
        ["size", "mode", "wait", "inner.low", "inner.high", "secret"]
    );
    assert_eq!(rows[0].doc, " Segment size.\n Second line.\n");
    assert_eq!(
        (
            rows[0].unit,
            rows[0].value.as_str(),
            rows[0].allowed.as_str()
        ),
        ("bytes", "1448", "88..=9000")
    );
    assert_eq!(
        (
            rows[1].unit,
            rows[1].allowed.as_str(),
            rows[1].value.as_str()
        ),
        ("choice", "plain | fancy", "plain")
    );
    assert_eq!(rows[2].value, "200ms");
    assert!(rows[3].public && !rows[5].public);
}

#[test]
fn choices_map_names_both_ways() {
    assert_eq!(Mode::Fancy.name(), "fancy");
    assert_eq!(Mode::from_name("plain"), Some(Mode::Plain));
    assert_eq!(Mode::from_name("Plain"), None);
    assert_eq!(Mode::NAMES, ["plain", "fancy"]);
}
