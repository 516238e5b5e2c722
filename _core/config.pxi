# RULE CORE: RuleConfig, what an AD engine tells a rule about itself (rrule_via_ad, frule_via_ad).
# ---------------------------------------------------------------------------
# RuleConfig: what an AD engine tells a rule about itself.  Rules that must
# call back into the AD (map, reduce, sorted with key=...) are registered with
# a config requirement and receive the config as their first argument.
# ---------------------------------------------------------------------------

cdef class RuleConfig:
    """RuleConfig: base class of the configs an AD engine passes to
    `rrule(config, f, ...)` / `frule(config, tangents, f, ...)`.

    Capabilities are class attributes: `has_reverse_mode` (the engine can
    run `rrule_via_ad`), `has_forward_mode` (`frule_via_ad`).  An engine
    subclasses it and overrides `rrule_via_ad(self, f, *args)` ->
    `(Ω, pullback)` and `frule_via_ad(self, tangents, f, *args)` -> `(Ω, ΔΩ)`.

    A rule registered with `config="reverse"` is only used when the config
    passed has reverse mode; with `config=True`, with any config."""
    has_reverse_mode = False
    has_forward_mode = False

    def rrule_via_ad(self, f, *args, **kwargs):
        raise TypeError(f"{type(self).__name__} has no reverse mode: it cannot run rrule_via_ad")

    def frule_via_ad(self, tangents, f, *args, **kwargs):
        raise TypeError(f"{type(self).__name__} has no forward mode: it cannot run frule_via_ad")


def rrule_via_ad(config, f, *args, **kwargs):
    """`rrule_via_ad(config, f, *args)` -> `(Ω, pullback)`: differentiate f in
    reverse mode with the AD engine that supplied `config`."""
    if not isinstance(config, RuleConfig):
        raise TypeError(f"rrule_via_ad({_fname(f)}): the first argument must be a RuleConfig, "
                        f"got {type(config).__name__}")
    if not getattr(config, "has_reverse_mode", False):
        raise TypeError(f"rrule_via_ad({_fname(f)}): {type(config).__name__} has no reverse mode "
                        "(has_reverse_mode is False)")
    return config.rrule_via_ad(f, *args, **kwargs)


def frule_via_ad(config, tangents, f, *args, **kwargs):
    """`frule_via_ad(config, tangents, f, *args)` -> `(Ω, ΔΩ)`: differentiate f
    in forward mode with the AD engine that supplied `config`."""
    if not isinstance(config, RuleConfig):
        raise TypeError(f"frule_via_ad({_fname(f)}): the first argument must be a RuleConfig, "
                        f"got {type(config).__name__}")
    if not getattr(config, "has_forward_mode", False):
        raise TypeError(f"frule_via_ad({_fname(f)}): {type(config).__name__} has no forward mode "
                        "(has_forward_mode is False)")
    return config.frule_via_ad(tangents, f, *args, **kwargs)
