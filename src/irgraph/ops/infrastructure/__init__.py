"""Ops of OpenVINO's 'infrastructure' spec category."""
