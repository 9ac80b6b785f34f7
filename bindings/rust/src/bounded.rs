//! Integers with the bounds their schema gives them.
//!
//! typify (the generator of the typed bindings' Rust types) maps an integer
//! schema to the Rust integer whose range is exactly the schema's bounds,
//! and to a plain `i64`/`u64` when none is: `{"minimum": 0, "maximum":
//! 262144}` would accept -1 and 262145. `wirekit generate` gives such a
//! field a [`BoundedInt`] instead, so decoding refuses what the schema
//! refuses and a value out of range cannot be built.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::{Serialize, Serializer};

/// An integer in `MIN..=MAX`: decoding and [`BoundedInt::new`] refuse any
/// other; it encodes as the plain number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BoundedInt<const MIN: i64, const MAX: i64>(i64);

/// A value outside a [`BoundedInt`]'s bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutOfBounds {
    /// The refused value (`i128`: a `u64` above `i64::MAX` fits too).
    pub value: i128,
    /// The smallest value allowed.
    pub min: i64,
    /// The largest value allowed.
    pub max: i64,
}

impl fmt::Display for OutOfBounds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = if self.value < i128::from(self.min) {
            format!("less than the minimum {}", self.min)
        } else {
            format!("more than the maximum {}", self.max)
        };
        write!(
            f,
            "{} is {side} (allowed: {}..={})",
            self.value, self.min, self.max
        )
    }
}

impl std::error::Error for OutOfBounds {}

impl<const MIN: i64, const MAX: i64> BoundedInt<MIN, MAX> {
    /// The smallest value allowed.
    pub const MIN: i64 = MIN;
    /// The largest value allowed.
    pub const MAX: i64 = MAX;

    /// `value` if it is within the bounds.
    pub fn new(value: i64) -> Result<Self, OutOfBounds> {
        Self::checked(i128::from(value))
    }

    fn checked(value: i128) -> Result<Self, OutOfBounds> {
        if (i128::from(MIN)..=i128::from(MAX)).contains(&value) {
            // In MIN..=MAX, so within i64.
            i64::try_from(value)
                .map(BoundedInt)
                .map_err(|_| OutOfBounds {
                    value,
                    min: MIN,
                    max: MAX,
                })
        } else {
            Err(OutOfBounds {
                value,
                min: MIN,
                max: MAX,
            })
        }
    }

    /// The number.
    pub const fn get(self) -> i64 {
        self.0
    }
}

impl<const MIN: i64, const MAX: i64> TryFrom<i64> for BoundedInt<MIN, MAX> {
    type Error = OutOfBounds;

    fn try_from(value: i64) -> Result<Self, OutOfBounds> {
        Self::new(value)
    }
}

impl<const MIN: i64, const MAX: i64> From<BoundedInt<MIN, MAX>> for i64 {
    fn from(value: BoundedInt<MIN, MAX>) -> i64 {
        value.0
    }
}

impl<const MIN: i64, const MAX: i64> std::ops::Deref for BoundedInt<MIN, MAX> {
    type Target = i64;

    fn deref(&self) -> &i64 {
        &self.0
    }
}

impl<const MIN: i64, const MAX: i64> fmt::Display for BoundedInt<MIN, MAX> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<const MIN: i64, const MAX: i64> Serialize for BoundedInt<MIN, MAX> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_i64(self.0)
    }
}

impl<'de, const MIN: i64, const MAX: i64> Deserialize<'de> for BoundedInt<MIN, MAX> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Bounded<const MIN: i64, const MAX: i64>;

        impl<const MIN: i64, const MAX: i64> Visitor<'_> for Bounded<MIN, MAX> {
            type Value = BoundedInt<MIN, MAX>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "an integer in {MIN}..={MAX}")
            }

            fn visit_i64<E: de::Error>(self, value: i64) -> Result<Self::Value, E> {
                BoundedInt::checked(i128::from(value)).map_err(E::custom)
            }

            fn visit_u64<E: de::Error>(self, value: u64) -> Result<Self::Value, E> {
                BoundedInt::checked(i128::from(value)).map_err(E::custom)
            }
        }

        deserializer.deserialize_i64(Bounded::<MIN, MAX>)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Length = BoundedInt<0, 262_144>;

    #[test]
    fn decoding_refuses_what_the_schema_refuses() {
        let ok: Length = serde_json::from_str("262144").expect("the maximum is allowed");
        assert_eq!(ok.get(), 262_144);
        assert_eq!(serde_json::to_string(&ok).expect("encodes"), "262144");
        let zero: Length = serde_json::from_str("0").expect("the minimum is allowed");
        assert_eq!(*zero, 0);
        for (text, why) in [
            (
                "262145",
                "262145 is more than the maximum 262144 (allowed: 0..=262144)",
            ),
            ("-1", "-1 is less than the minimum 0 (allowed: 0..=262144)"),
            (
                "18446744073709551615",
                "18446744073709551615 is more than the maximum 262144 (allowed: 0..=262144)",
            ),
        ] {
            let err = serde_json::from_str::<Length>(text).expect_err(text);
            assert!(err.to_string().starts_with(why), "{text}: {err}");
        }
        assert!(serde_json::from_str::<Length>("1.5").is_err());
        assert!(serde_json::from_str::<Length>("\"1\"").is_err());
    }

    #[test]
    fn built_values_are_checked_too() {
        assert_eq!(Length::new(5).map(i64::from), Ok(5));
        assert_eq!(
            Length::try_from(-3),
            Err(OutOfBounds {
                value: -3,
                min: 0,
                max: 262_144
            })
        );
        assert_eq!((Length::MIN, Length::MAX), (0, 262_144));
    }
}
