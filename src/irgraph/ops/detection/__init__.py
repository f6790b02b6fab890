"""Ops of OpenVINO's 'detection' spec category."""
