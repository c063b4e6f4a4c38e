"""Contract cases, one module per door (docs/contract.md): each module defines ``CASES: list[Case]``
(``contract_support.Case``), which ``test_contract_matrix.py`` runs and checks against the contract's rows."""
