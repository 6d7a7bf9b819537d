"""torch.nn.modules: the layers, losses and containers (one file per family, as upstream)."""

__all__: list = []

# ==== issue 15: modules ====
# (the modules family's entries follow this line)

# ==== issue 15: seq ====
# (the seq family's entries follow this line)
