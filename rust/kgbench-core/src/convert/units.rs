//! Units of measurement keyed by Wikidata item QID.
//!
//! A Wikidata dump gives a quantity's unit as an item IRI (`wikibase:quantityUnit
//! wd:Q11573`), never as a label. The original CypherBench engine read the unit
//! item's English label and converted with pint, plus its own extra units (earth /
//! jupiter / solar radius and mass, light-year, parsec, astronomical unit, nautical
//! mile; seed cypherbench.txt §3.2 "Unit standardization"). kgbench keys the same
//! units by QID, with their English labels (as written on Wikidata, matched
//! case-insensitively against a schema's `quantity_unit`) and a factor to the SI
//! unit of their dimension. Temperature units are affine: `si = value * factor +
//! offset` (kelvin), and are converted exactly.
//!
//! QIDs marked "(seen)" were checked against the real data in the project's test
//! data (`tests/data/wikidata/`); the others are the well-known Wikidata items.

/// Physical dimension of a unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dim {
    Length,
    Area,
    Volume,
    Mass,
    Time,
    Speed,
    VolumetricFlow,
    Temperature,
    Dimensionless,
}

impl Dim {
    /// What a unit of this dimension measures (`"a length"`), for messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Dim::Length => "a length",
            Dim::Area => "an area",
            Dim::Volume => "a volume",
            Dim::Mass => "a mass",
            Dim::Time => "a duration",
            Dim::Speed => "a speed",
            Dim::VolumetricFlow => "a volumetric flow",
            Dim::Temperature => "a temperature",
            Dim::Dimensionless => "a dimensionless number",
        }
    }
}

/// Quantity properties of Wikidata whose allowed units (the property's
/// "allowed units" constraint, P2302 = Q21514353) all have one dimension. A
/// schema's `quantity_unit` of another dimension on one of them could never
/// keep a value, and is refused.
const PROPERTY_DIMENSIONS: &[(u32, Dim)] = &[
    (2043, Dim::Length),         // length
    (2044, Dim::Length),         // elevation above sea level
    (2048, Dim::Length),         // height
    (2049, Dim::Length),         // width
    (2050, Dim::Length),         // wingspan
    (2073, Dim::Length),         // vehicle range
    (2120, Dim::Length),         // radius
    (2386, Dim::Length),         // diameter
    (2547, Dim::Length),         // perimeter
    (2583, Dim::Length),         // distance from Earth
    (2610, Dim::Length),         // thickness
    (2659, Dim::Length),         // topographic isolation
    (2660, Dim::Length),         // topographic prominence
    (4511, Dim::Length),         // vertical depth
    (2046, Dim::Area),           // area
    (2053, Dim::Area),           // watershed area
    (2234, Dim::Volume),         // volume
    (2067, Dim::Mass),           // mass
    (2047, Dim::Time),           // duration
    (2097, Dim::Time),           // term length of office
    (2114, Dim::Time),           // half-life
    (2146, Dim::Time),           // orbital period
    (2052, Dim::Speed),          // speed
    (2075, Dim::Speed),          // speed of sound
    (2225, Dim::VolumetricFlow), // discharge
    (2076, Dim::Temperature),    // temperature
    (2101, Dim::Temperature),    // melting point
    (2102, Dim::Temperature),    // boiling point
    (2128, Dim::Temperature),    // flash point
];

/// The dimension of Wikidata quantity property `P<pid>` when kgbench knows it
/// ([`PROPERTY_DIMENSIONS`]).
pub fn property_dimension(pid: u32) -> Option<Dim> {
    PROPERTY_DIMENSIONS
        .iter()
        .find(|(p, _)| *p == pid)
        .map(|(_, d)| *d)
}

/// One unit: English label, dimension, `si = value * factor + offset`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Unit {
    pub label: &'static str,
    pub dim: Dim,
    pub factor: f64,
    pub offset: f64,
}

const fn u(label: &'static str, dim: Dim, factor: f64) -> Unit {
    Unit {
        label,
        dim,
        factor,
        offset: 0.0,
    }
}

/// The unit table: `(QID, unit)`.
pub static UNITS: &[(&str, Unit)] = &[
    ("Q199", u("1", Dim::Dimensionless, 1.0)), // (seen) unitless
    // length (SI: metre)
    ("Q11573", u("metre", Dim::Length, 1.0)), // (seen) Q42 height
    ("Q174728", u("centimetre", Dim::Length, 0.01)),
    ("Q174789", u("millimetre", Dim::Length, 0.001)),
    ("Q200323", u("decimetre", Dim::Length, 0.1)),
    ("Q828224", u("kilometre", Dim::Length, 1000.0)),
    ("Q175821", u("micrometre", Dim::Length, 1e-6)),
    ("Q178674", u("nanometre", Dim::Length, 1e-9)),
    ("Q218593", u("inch", Dim::Length, 0.0254)),
    ("Q3710", u("foot", Dim::Length, 0.3048)),
    ("Q482798", u("yard", Dim::Length, 0.9144)),
    ("Q253276", u("mile", Dim::Length, 1609.344)),
    ("Q93318", u("nautical mile", Dim::Length, 1852.0)),
    (
        "Q1811",
        u("astronomical unit", Dim::Length, 149_597_870_700.0),
    ),
    (
        "Q531",
        u("light-year", Dim::Length, 9_460_730_472_580_800.0),
    ),
    (
        "Q12129",
        u("parsec", Dim::Length, 30_856_775_814_913_672.789),
    ),
    ("Q1155470", u("earth radius", Dim::Length, 6_371_000.0)),
    ("Q3421309", u("jupiter radius", Dim::Length, 69_911_000.0)),
    ("Q48440", u("solar radius", Dim::Length, 695_700_000.0)),
    // area (SI: square metre)
    ("Q25343", u("square metre", Dim::Area, 1.0)),
    ("Q2489298", u("square centimetre", Dim::Area, 1e-4)),
    ("Q712226", u("square kilometre", Dim::Area, 1e6)),
    ("Q35852", u("hectare", Dim::Area, 1e4)),
    ("Q81292", u("acre", Dim::Area, 4_046.856_422_4)),
    ("Q232291", u("square mile", Dim::Area, 2_589_988.110_336)),
    ("Q857027", u("square foot", Dim::Area, 0.092_903_04)),
    // volume (SI: cubic metre)
    ("Q25517", u("cubic metre", Dim::Volume, 1.0)),
    ("Q4243638", u("cubic kilometre", Dim::Volume, 1e9)),
    ("Q1022113", u("cubic centimetre", Dim::Volume, 1e-6)),
    ("Q11582", u("litre", Dim::Volume, 1e-3)),
    ("Q2332346", u("millilitre", Dim::Volume, 1e-6)),
    // mass (SI: kilogram)
    ("Q11570", u("kilogram", Dim::Mass, 1.0)),
    ("Q41803", u("gram", Dim::Mass, 1e-3)),
    ("Q3241121", u("milligram", Dim::Mass, 1e-6)),
    ("Q191118", u("tonne", Dim::Mass, 1000.0)),
    ("Q100995", u("pound", Dim::Mass, 0.453_592_37)),
    ("Q48013", u("ounce", Dim::Mass, 0.028_349_523_125)),
    ("Q681996", u("earth mass", Dim::Mass, 5.972e24)),
    ("Q651336", u("jupiter mass", Dim::Mass, 1.89813e27)),
    ("Q180892", u("solar mass", Dim::Mass, 1.9884e30)),
    // time / duration (SI: second); year = julian year as in pint
    ("Q11574", u("second", Dim::Time, 1.0)),
    ("Q723733", u("millisecond", Dim::Time, 1e-3)),
    ("Q7727", u("minute", Dim::Time, 60.0)),
    ("Q25235", u("hour", Dim::Time, 3600.0)),
    ("Q573", u("day", Dim::Time, 86_400.0)),
    ("Q23387", u("week", Dim::Time, 604_800.0)),
    ("Q5151", u("month", Dim::Time, 2_629_800.0)),
    ("Q577", u("year", Dim::Time, 31_557_600.0)),
    ("Q1092296", u("annum", Dim::Time, 31_557_600.0)),
    // speed (SI: metre per second)
    ("Q182429", u("metre per second", Dim::Speed, 1.0)),
    (
        "Q180154",
        u("kilometre per hour", Dim::Speed, 1000.0 / 3600.0),
    ),
    ("Q211256", u("mile per hour", Dim::Speed, 0.447_04)),
    ("Q128822", u("knot", Dim::Speed, 1852.0 / 3600.0)),
    // volumetric flow (SI: cubic metre per second)
    (
        "Q794261",
        u("cubic metre per second", Dim::VolumetricFlow, 1.0),
    ),
    // temperature (SI: kelvin), affine
    ("Q11579", u("kelvin", Dim::Temperature, 1.0)),
    (
        "Q25267",
        Unit {
            label: "degree Celsius",
            dim: Dim::Temperature,
            factor: 1.0,
            offset: 273.15,
        },
    ),
    (
        "Q42289",
        Unit {
            label: "degree Fahrenheit",
            dim: Dim::Temperature,
            factor: 5.0 / 9.0,
            offset: 273.15 - 32.0 * 5.0 / 9.0,
        },
    ),
];

/// The unit with this QID (`"Q11573"`), if in the table.
pub fn by_qid(qid: &str) -> Option<&'static Unit> {
    UNITS.iter().find(|(q, _)| *q == qid).map(|(_, u)| u)
}

/// The unit whose English label matches `label` case-insensitively (as the
/// original compared `unitLabel.lower()`), with its QID.
pub fn by_label(label: &str) -> Option<(&'static str, &'static Unit)> {
    let l = label.trim().to_lowercase();
    UNITS
        .iter()
        .find(|(_, u)| u.label.to_lowercase() == l)
        .map(|(q, u)| (*q, u))
}

/// Why a quantity could not be converted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConvertError {
    /// The source is unitless (`wd:Q199`) but the target has a dimension.
    Unitless,
    /// Source and target measure different dimensions.
    DimensionMismatch,
}

/// Convert `value` from unit `src` to unit `trg`. The multiplicative path computes
/// `value * (src.factor / trg.factor)`, so a unit converts to itself exactly.
pub fn convert(value: f64, src: &Unit, trg: &Unit) -> Result<f64, ConvertError> {
    if src.dim != trg.dim {
        if src.dim == Dim::Dimensionless {
            return Err(ConvertError::Unitless);
        }
        return Err(ConvertError::DimensionMismatch);
    }
    if src == trg {
        return Ok(value);
    }
    if src.offset == 0.0 && trg.offset == 0.0 {
        if src.factor == trg.factor {
            return Ok(value);
        }
        let ratio = src.factor / trg.factor;
        return Ok(value * ratio);
    }
    let si = value * src.factor + src.offset;
    Ok((si - trg.offset) / trg.factor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metre_to_centimetre() {
        let m = by_qid("Q11573").unwrap();
        let (_, cm) = by_label("Centimetre").unwrap();
        assert_eq!(convert(1.96, m, cm).unwrap(), 196.0);
    }

    #[test]
    fn temperature_is_affine() {
        let c = by_qid("Q25267").unwrap();
        let f = by_qid("Q42289").unwrap();
        assert!((convert(100.0, c, f).unwrap() - 212.0).abs() < 1e-9);
        assert!((convert(0.0, c, by_qid("Q11579").unwrap()).unwrap() - 273.15).abs() < 1e-12);
    }

    #[test]
    fn unitless_and_mismatch() {
        let one = by_qid("Q199").unwrap();
        let m = by_qid("Q11573").unwrap();
        let kg = by_qid("Q11570").unwrap();
        assert_eq!(convert(1.0, one, m), Err(ConvertError::Unitless));
        assert_eq!(convert(1.0, kg, m), Err(ConvertError::DimensionMismatch));
    }

    #[test]
    fn labels_and_qids_unique() {
        for (i, (q, u)) in UNITS.iter().enumerate() {
            for (q2, u2) in &UNITS[i + 1..] {
                assert_ne!(q, q2);
                assert_ne!(u.label.to_lowercase(), u2.label.to_lowercase());
            }
        }
    }
}
